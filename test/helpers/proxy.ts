import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

/** The proxy variables unset, both spellings: a run's environment without those of this machine. */
export const NO_PROXY_ENV = {
  HTTP_PROXY: undefined,
  http_proxy: undefined,
  HTTPS_PROXY: undefined,
  https_proxy: undefined,
  NO_PROXY: undefined,
  no_proxy: undefined,
};

export interface ForwardProxy {
  url: string;
  /** `METHOD host:port` of every request that went through: absolute-form requests and CONNECT tunnels. */
  seen: string[];
  close(): Promise<void>;
}

const listening = (server: Server) =>
  new Promise<string>((resolve) => server.listen(0, '127.0.0.1', () => resolve(`127.0.0.1:${(server.address() as AddressInfo).port}`)));

function closing(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const socket of sockets) socket.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * A name only the proxy knows (RFC 6761 keeps `.test` out of public DNS): a
 * host that is not this machine to whsvc, which the proxy reaches on
 * 127.0.0.1, as a company's proxy reaches hosts its users cannot resolve.
 */
export const PROXIED_HOST = 'service.test';

const reachedAs = (host: string) => (host === PROXIED_HOST ? '127.0.0.1' : host);

/** A forward proxy, as a company's would be: plain http requests in absolute form, https through CONNECT. */
export async function startForwardProxy(): Promise<ForwardProxy> {
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  const server = createHttpServer((req, res) => {
    const target = new URL(req.url ?? '');
    seen.push(`${req.method} ${target.host}`);
    target.hostname = reachedAs(target.hostname);
    const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, client: Socket) => {
    seen.push(`CONNECT ${req.url}`);
    const [host, port] = (req.url ?? '').split(':');
    const upstream = connect(Number(port), reachedAs(host!), () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.pipe(client);
      client.pipe(upstream);
    });
    const drop = () => {
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', drop);
    client.on('error', drop);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const address = await listening(server);
  return { url: `http://${address}`, seen, close: () => closing(server, sockets) };
}

export interface TlsFront {
  /** https://localhost:PORT */
  url: string;
  /** The same server by a name only the proxy resolves: https://service.test:PORT */
  proxiedUrl: string;
  /** The self-signed certificate, for NODE_EXTRA_CA_CERTS. */
  caFile: string;
  close(): Promise<void>;
}

/** An https server with a self-signed certificate (made by openssl), passing every request on to `backend`. */
export async function startTlsFront(backend: string): Promise<TlsFront> {
  const dir = mkdtempSync(join(tmpdir(), 'whsvc-tls-'));
  const key = join(dir, 'key.pem');
  const cert = join(dir, 'cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      key,
      '-out',
      cert,
      '-days',
      '1',
      '-subj',
      '/CN=localhost',
      '-addext',
      `subjectAltName=DNS:localhost,DNS:${PROXIED_HOST},IP:127.0.0.1`,
    ],
    { stdio: 'ignore' },
  );
  const sockets = new Set<Socket>();
  const server = createHttpsServer({ key: readFileSync(key), cert: readFileSync(cert) }, (req, res) => {
    const upstream = httpRequest(new URL(req.url ?? '/', backend), { method: req.method, headers: req.headers }, (answer) => {
      // Hop-by-hop: the backend closing its connection to us says nothing of the client's connection.
      const { connection: _connection, ...headers } = answer.headers;
      res.writeHead(answer.statusCode ?? 502, headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const address = await listening(server);
  return {
    url: `https://localhost:${address.split(':')[1]}`,
    proxiedUrl: `https://${PROXIED_HOST}:${address.split(':')[1]}`,
    caFile: cert,
    close: async () => {
      await closing(server, sockets);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A port nothing listens on (bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = createHttpServer();
  const address = await listening(server);
  await new Promise((resolve) => server.close(resolve));
  return Number(address.split(':')[1]);
}

/**
 * The certificate of `caFile` trusted by this process from now on, as NODE_EXTRA_CA_CERTS makes a process trust it at
 * its start: for whsvc run in-process, which cannot be given that variable. Returns the undo.
 */
export function trustInThisProcess(caFile: string): () => void {
  const before = getCACertificates('default');
  setDefaultCACertificates([...before, readFileSync(caFile, 'utf8')]);
  return () => setDefaultCACertificates(before);
}
