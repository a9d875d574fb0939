import type { IncomingMessage } from 'node:http';

/** The client went away before its request was whole: nobody to answer, nothing of ours to report. */
export class ClientGone extends Error {}

/**
 * What readBodyUpTo gives for a body past its limit: refuse it (413, with
 * `connection: close`), and read and drop the rest of it (discardRest) before
 * the connection closes.
 */
export const TOO_LARGE = Symbol('too large');

/**
 * A request's raw body, read up to `limit` bytes, for a server of whsvc's (the
 * sandbox, `listen`): TOO_LARGE past it, declared so by its Content-Length or
 * found so as it comes, and what came of it let go. Rejects with ClientGone
 * when the client leaves first.
 */
export async function readBodyUpTo(req: IncomingMessage, limit: number): Promise<Buffer | typeof TOO_LARGE> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return TOO_LARGE;
  return new Promise((resolve, reject) => {
    let chunks: Buffer[] = [];
    let size = 0;
    const stop = () => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onGone);
      req.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) return void chunks.push(chunk);
      stop();
      chunks = [];
      resolve(TOO_LARGE);
    };
    const onEnd = () => {
      stop();
      resolve(Buffer.concat(chunks));
    };
    const onGone = (error?: Error) => {
      stop();
      reject(new ClientGone(error?.message ?? 'aborted'));
    };
    const onClose = () => {
      if (!req.readableEnded) onGone();
    };
    req.on('data', onData);
    req.once('end', onEnd);
    req.once('error', onGone);
    req.once('close', onClose);
  });
}

/** What is read and dropped of a refused body before the answer, at most (nginx's lingering close, bounded the same way). */
const LINGER_BYTES = 16 * 1024 * 1024;
const LINGER_MS = 5_000;

/**
 * Reads and drops the rest of a body too large to take, for a bounded size
 * and time, before the connection closes: a client that sends its whole body
 * before reading (Python's urllib, for one) then reads the 413, where closing
 * with its data unread would reset the connection, and the answer with it.
 * Past the bound nothing more is read.
 */
export function discardRest(req: IncomingMessage): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let dropped = 0;
    const done = () => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', done);
      req.off('error', done);
      req.off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > LINGER_BYTES) done();
    };
    const timer = setTimeout(done, LINGER_MS);
    req.on('data', onData);
    req.once('end', done);
    req.once('error', done);
    req.once('close', done);
    req.resume();
  });
}
