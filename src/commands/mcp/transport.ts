import type { JSONRPCMessage, ReadBuffer, serializeMessage, Transport } from '@modelcontextprotocol/server';
import type { InputStream, OutputStream } from '../../cli/deps.js';

/**
 * MCP's stdio transport over the streams of the run's host (cli/host.ts): a JSON-RPC message a line, read from its
 * stdin and written to its stdout, so that the server runs in-process in a test as it runs in the process. The SDK's
 * own StdioServerTransport wants Node's streams; this is it for the host's. stdout is the protocol's alone: nothing
 * else of `whsvc mcp` writes there (server.ts gives the commands' runs a stdout of their own). A line that is not a
 * message is told to `onerror` and passed over: the server goes on answering.
 */
export class HostTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: JSONRPCMessage) => void) | undefined;
  private readonly buffer: ReadBuffer;
  private closed = false;

  constructor(
    private readonly stdin: InputStream,
    private readonly stdout: OutputStream,
    /** The SDK's line reader and writer (the SDK is loaded at the command's start: server.ts). */
    private readonly lines: { ReadBuffer: typeof ReadBuffer; serializeMessage: typeof serializeMessage },
  ) {
    this.buffer = new lines.ReadBuffer();
  }

  async start(): Promise<void> {
    void this.read();
  }

  /** Reads stdin to its end (the client went away), then closes. */
  private async read(): Promise<void> {
    try {
      for await (const chunk of this.stdin) {
        if (this.closed) break;
        this.buffer.append(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
        this.drain();
      }
    } catch (error) {
      this.onerror?.(error as Error);
    }
    await this.close();
  }

  private drain(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error);
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) throw new Error('the client went away');
    this.stdout.write(this.lines.serializeMessage(message));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.buffer.clear();
    this.onclose?.();
  }
}
