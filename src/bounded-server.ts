import { createServer, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { readBodyUpTo, TOO_LARGE } from './request-body.js';

/**
 * What a whsvc server (listen's receiver, the sandbox's API) takes of its clients, so that a flood of connections,
 * idle or sending slowly (slowloris), costs it a bounded number of descriptors and real requests keep being answered.
 */
export interface ConnectionBounds {
  /**
   * A connection's request headers must have come within this (node:http's headersTimeout, which runs from the
   * connection's start: one that sends nothing at all is answered 408 and closed too)...
   */
  headersTimeoutMs: number;
  /** ...and its whole request within this (requestTimeout); past either, 408 and the connection closed. */
  requestTimeoutMs: number;
  /** Connections open at once; a new one past it closes the oldest that is not being answered (ConnectionBound). */
  maxConnections: number;
}

/** A kept-alive connection with no request is closed after this (node:http's own default, named so the docs' figure holds). */
export const KEEP_ALIVE_MS = 5_000;

/** The most of a request's headers read (node:http's default, set here so that no --max-http-header-size changes it): past it, 431. */
export const MAX_HEADER_BYTES = 16 * 1024;

/**
 * An HTTP server within `bounds` (its requests' handler added by the caller, on 'request'), and the ConnectionBound
 * that holds its connections (`onShed`: one was closed to make room), through which its handler reads each request.
 */
export function boundedServer(bounds: ConnectionBounds, onShed?: () => void): { server: Server; connections: ConnectionBound } {
  const connections = new ConnectionBound(bounds.maxConnections, onShed);
  const server = createServer(boundedServerOptions(bounds));
  server.on('connection', (socket: Socket) => connections.connected(socket));
  return { server, connections };
}

/** node:http's options for a server within `bounds`. */
function boundedServerOptions(bounds: ConnectionBounds): ServerOptions {
  return {
    headersTimeout: bounds.headersTimeoutMs,
    requestTimeout: bounds.requestTimeoutMs,
    keepAliveTimeout: KEEP_ALIVE_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
    // How often node:http looks for a connection past them (its default, 30 s, would triple the wait).
    connectionsCheckingInterval: Math.min(1_000, bounds.headersTimeoutMs / 2),
  };
}

/**
 * At most `most` connections open at once. A connection past it closes the
 * oldest one that is not being answered (one still sending its request, or
 * idle between two), itself when every other is: a flood of slow connections
 * (slowloris) pushes out its own oldest, and a real delivery, whose request
 * comes whole in moments, is answered. The descriptors stay within the
 * process's file limit, so the server never stops accepting.
 */
export class ConnectionBound {
  private readonly open = new Set<Socket>();
  /** The connections not being answered, oldest first (a Set keeps the order they were added in). */
  private readonly waiting = new Set<Socket>();

  constructor(
    private readonly most: number,
    private readonly onShed?: () => void,
  ) {}

  connected(socket: Socket): void {
    this.open.add(socket);
    this.waiting.add(socket);
    socket.once('close', () => this.forget(socket));
    if (this.open.size <= this.most) return;
    const oldest = this.waiting.values().next().value!;
    this.forget(oldest);
    oldest.destroy();
    this.onShed?.();
  }

  /**
   * A request's body, read up to `limit` (readBodyUpTo), and only then its connection counted as being answered, until
   * `res` closes: one still sending its body, slowly or never, is among those closed to make room, as one still sending
   * its headers is. A body past `limit` (TOO_LARGE) is refused, never answered at length: its connection stays among them.
   */
  async wholeRequest(req: IncomingMessage, res: ServerResponse, limit: number): Promise<Buffer | typeof TOO_LARGE> {
    const body = await readBodyUpTo(req, limit);
    if (body === TOO_LARGE) return body;
    this.waiting.delete(req.socket);
    res.once('close', () => this.answered(req.socket));
    return body;
  }

  /** Answered in part and held open (a live stream that only ever sends): it may be closed to make room, as an idle one. */
  heldOpen(socket: Socket): void {
    this.answered(socket);
  }

  /** Answered: kept alive for another request, it waits again, as the newest. */
  answered(socket: Socket): void {
    if (this.open.has(socket)) this.waiting.add(socket);
  }

  private forget(socket: Socket): void {
    this.open.delete(socket);
    this.waiting.delete(socket);
  }
}
