import type { SecretMask } from '../api/redact.js';
import type { OutputStream } from '../render/stream.js';
import type { JsonOutput } from './json-output.js';

export type { OutputStream };

/** The streams and environment a command's run function works with; tests pass fakes. */

export interface InputStream extends AsyncIterable<Buffer | string> {
  isTTY?: boolean;
}

export interface Io {
  stdin: InputStream;
  stdout: OutputStream;
  stderr: OutputStream;
  env: NodeJS.ProcessEnv;
  /** Where --json's output goes, as values: printed, or through --jq (output.ts). */
  jsonOut: JsonOutput;
  /**
   * The secrets this run holds (its client's, the signing secrets it creates or reads), one mask for all it prints of
   * others' text: the service's errors and --debug (api/client.ts), jq's errors and environment (cli/jq.ts).
   */
  secrets?: SecretMask | undefined;
}
