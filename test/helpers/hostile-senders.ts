import { connect, type Socket } from 'node:net';

// Senders a receiver must hold out against, on 127.0.0.1: a body larger than any it takes, a connection that never
// sends its whole request.

const MiB = 1024 * 1024;

/**
 * POSTs up to `totalBytes` of body on a connection of its own, made 1 MiB at a time as it is sent (never held whole),
 * each write waiting on the last one's drain, and sending on whatever is answered, as a sender that does not read
 * would: resolves, once the receiver closes the connection (or has answered a body sent whole), with the answer's
 * status (null if none came) and the bytes written. `declared`: with its Content-Length, else chunked. `goOn`, asked
 * before each MiB, stops it early.
 */
export function streamBody(
  url: string,
  totalBytes: number,
  options: { declared: boolean; goOn?: () => boolean },
): Promise<{ status: number | null; written: number }> {
  const target = new URL(url);
  const chunk = Buffer.alloc(MiB, 0x61);
  const piece = options.declared ? chunk : Buffer.concat([Buffer.from(`${MiB.toString(16)}\r\n`), chunk, Buffer.from('\r\n')]);
  const length = options.declared ? `content-length: ${totalBytes}` : 'transfer-encoding: chunked';
  return new Promise((resolve) => {
    let written = 0;
    let answer = '';
    const socket = connect(Number(target.port), target.hostname);
    const settle = () => {
      socket.destroy();
      const status = /^HTTP\/1\.1 (\d{3}) /.exec(answer)?.[1];
      resolve({ status: status === undefined ? null : Number(status), written });
    };
    socket.once('close', settle);
    socket.on('error', () => socket.destroy());
    socket.on('data', (data) => {
      if (answer.length < 1024) answer += data;
      if (written >= totalBytes) settle();
    });
    const write = () => {
      while (!socket.destroyed && written < totalBytes) {
        if (options.goOn?.() === false) return settle();
        written += MiB;
        if (!socket.write(piece)) return void socket.once('drain', write);
      }
      if (!socket.destroyed && !options.declared) socket.write('0\r\n\r\n');
    };
    socket.once('connect', () => {
      socket.write(`POST / HTTP/1.1\r\nhost: ${target.host}\r\ncontent-type: application/json\r\n${length}\r\n\r\n`);
      write();
    });
  });
}

/** A connection that sends `text` and then nothing, until the other end closes it: `closed` gives what it was answered. */
export function connectionSending(url: string, text: string): Promise<{ socket: Socket; closed: Promise<string> }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname, () => {
      socket.write(text);
      resolve({ socket, closed });
    });
    let answer = '';
    socket.on('data', (data) => (answer += data));
    const closed = new Promise<string>((done) => socket.on('close', () => done(answer)));
    socket.once('error', (error) => (socket.connecting ? reject(error) : undefined));
  });
}

/** A connection that sends the start of a request's headers and then nothing: a slowloris connection. */
export const slowConnection = (url: string) => connectionSending(url, 'POST / HTTP/1.1\r\nHost: 127.0.0.1\r\n');
