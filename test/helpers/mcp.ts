import { Client, type JSONRPCMessage, ReadBuffer, serializeMessage, type Transport } from '@modelcontextprotocol/client';
import type { InputStream, OutputStream } from '../../src/cli/deps.js';
import { runCli } from '../../src/run-cli.js';
import type { Env } from './cli.js';
import { hostFor } from './in-process.js';

// `whsvc mcp` run in-process (runCli, the test's own host) and the SDK's own Client connected to it over the host's
// stdin and stdout, as an agent's client is over a process's: JSON-RPC a line each way, through the same bytes.

/** A stdin the test writes to: what is pushed is read by the run, in order; end() is the client going away. */
class PushedStdin implements InputStream {
  isTTY = false;
  private readonly queue: string[] = [];
  private wake: (() => void) | undefined;
  private ended = false;

  push(text: string): void {
    this.queue.push(text);
    this.wake?.();
  }

  end(): void {
    this.ended = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    for (;;) {
      while (this.queue.length > 0) yield this.queue.shift()!;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}

/** The client's side of the run's stdio. */
class HostClientTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  private readonly buffer = new ReadBuffer();

  constructor(private readonly stdin: PushedStdin) {}

  async start(): Promise<void> {}

  /** What the run wrote on stdout, as it comes. */
  received(chunk: string): void {
    this.buffer.append(Buffer.from(chunk, 'utf8'));
    for (let message = this.buffer.readMessage(); message !== null; message = this.buffer.readMessage()) this.onmessage?.(message);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    this.stdin.push(serializeMessage(message));
  }

  async close(): Promise<void> {
    this.stdin.end();
    this.onclose?.();
  }
}

export interface McpInProcess {
  client: Client;
  /** Everything the run wrote on stdout: the protocol's messages and nothing else. */
  stdout(): string;
  stderr(): string;
  /** A line written on the run's stdin as it is, outside the client (a line that is not a message). */
  write(line: string): void;
  /** The client goes away (stdin ends); resolves with the run's exit code. */
  close(): Promise<number>;
  exit: Promise<number>;
}

/** `whsvc mcp <args>` in-process with `env`, its host's clock `now` (Date.now unless given), and a connected Client. */
export async function mcpInProcess(args: string[], env: Env, now?: () => number): Promise<McpInProcess> {
  const { host, stderr } = hostFor({ env });
  const stdin = new PushedStdin();
  const transport = new HostClientTransport(stdin);
  let written = '';
  const stdout: OutputStream = {
    write(chunk: string) {
      written += chunk;
      transport.received(chunk);
      return true;
    },
  };
  host.stdin = stdin;
  host.stdout = stdout;
  if (now) host.now = now;
  const exit = runCli(['mcp', ...args], host);
  const client = new Client({ name: 'whsvc-test', version: '1' });
  await client.connect(transport);
  return {
    client,
    stdout: () => written,
    stderr: () => stderr.text,
    write: (line) => stdin.push(`${line}\n`),
    close: async () => {
      await client.close();
      return exit;
    },
    exit,
  };
}
