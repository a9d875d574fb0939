import { readTools } from './read-tools.js';
import { sandboxTools } from './sandbox-tools.js';
import type { AnyTool, Zod } from './tools.js';
import { writeTools } from './write-tools.js';

/** Every tool `whsvc mcp` has, in the order it lists them: the reads, the writes, the sandbox's. */
export const toolsOf = (z: Zod): AnyTool[] => [...readTools(z), ...writeTools(z), ...sandboxTools(z)];

/** What a run of the server offers: writes (not --read-only, and a token that may write), creates, the sandbox's tools. */
export interface Offer {
  writes: boolean;
  /** --secret-dir given: a create has somewhere to put its secret. */
  secretDir: boolean;
  /** The profile points at a whsvc sandbox. */
  sandbox: boolean;
}

export const offered = (tool: AnyTool, offer: Offer): boolean =>
  (tool.kind === 'read' || offer.writes) && (!tool.needsSecretDir || offer.secretDir) && (!tool.sandbox || offer.sandbox);
