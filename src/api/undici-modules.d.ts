// The one part of the undici package an API command loads (see transport.ts):
// the package's index loads all of undici (fetch, WebSocket, caches, mocks),
// which costs a command more than its request. Typed from the package's own types.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
