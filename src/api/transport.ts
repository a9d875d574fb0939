import { request as httpRequest } from 'node:http';

export interface TransportRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: string | undefined;
  timeoutMs: number;
}

export interface TransportResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** Sends one HTTP request; rejects on no answer. Unit tests pass another transport. */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;

export class TransportError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** True once the request may have reached the server (so it may have acted). */
    readonly sent: boolean,
  ) {
    super(message);
  }
}

/**
 * node:http directly: the cheapest way Node has to make a request, which is
 * what a CLI's start-up time is mostly made of (see the README's figures).
 */
export const nodeHttpTransport: Transport = async (req) => {
  // node:https brings TLS with it: loaded only for an https base URL (the sandbox is plain http).
  const send = req.url.protocol === 'https:' ? (await import('node:https')).request : httpRequest;
  return new Promise((resolve, reject) => {
    let sent = false;
    const outgoing = send(req.url, { method: req.method, headers: req.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      response.on('error', (error) => fail(error));
    });
    const fail = (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new TransportError(error.message, error.code ?? 'ERR_NETWORK', sent || error.code === 'ECONNRESET'));
    };
    const timer = setTimeout(() => {
      outgoing.destroy();
      clearTimeout(timer);
      reject(new TransportError(`no answer within ${req.timeoutMs / 1000} s`, 'ETIMEDOUT', sent));
    }, req.timeoutMs);
    outgoing.on('error', fail);
    outgoing.on('finish', () => (sent = true));
    outgoing.end(req.body);
  });
};
