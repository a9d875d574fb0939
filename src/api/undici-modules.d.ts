// The two parts of the undici package an API command loads (see transport.ts):
// the package's index loads all of undici (fetch, WebSocket, caches, mocks),
// which costs a command more than its request. Typed from the package's own types.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}

declare module 'undici/lib/api/api-request.js' {
  import type { Dispatcher } from 'undici';
  /** Dispatcher.prototype.request, called on a dispatcher of this package. */
  export default function request(this: Dispatcher, options: Dispatcher.RequestOptions): Promise<Dispatcher.ResponseData>;
}
