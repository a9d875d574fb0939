import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ErrorAnswer } from '../http.js';
import { isLoopbackHost } from '../../net.js';
import { sameSecret } from '../../protocol/signature.js';

/**
 * Who may use the inspector. On a loopback address no login is needed, but
 * the Host header must be a loopback name (so a web page rebinding its DNS
 * name to 127.0.0.1 reads nothing). On any other address every route needs
 * the token printed at start (`/?token=…` once, then a cookie; or the
 * X-Whsvc-Inspector-Token header). Actions come only from the page's origin.
 */
export class InspectorAccess {
  /** Closed until the sandbox listens and says where. */
  private token: string | undefined = randomBytes(24).toString('base64url');
  private cookieName = 'whsvc_inspector';

  /** Where the sandbox listens: loopback opens the inspector without a token; any other address keeps it. */
  expose(address: AddressInfo): void {
    if (isLoopbackAddress(address.address)) this.token = undefined;
    else this.token ??= randomBytes(24).toString('base64url');
    this.cookieName = `whsvc_inspector_${address.port}`;
  }

  /** The inspector's address to print: with its token when it needs one. */
  url(baseUrl: string): string {
    return `${baseUrl}/${this.token === undefined ? '' : `?token=${this.token}`}`;
  }

  /** A page address that carries the token: the cookie to set instead (the token then leaves the address bar), else none. */
  tokenCookie(query: URLSearchParams): string | undefined {
    return this.token !== undefined && query.has('token') ? `${this.cookieName}=${this.token}; HttpOnly; SameSite=Lax; Path=/` : undefined;
  }

  /** On loopback, a request named for another host (a page that rebound its DNS name to 127.0.0.1) is refused. */
  checkLoopbackHost(req: IncomingMessage): void {
    if (this.token !== undefined) return;
    const host = req.headers.host;
    if (host !== undefined && !isLoopbackHost(hostName(host))) {
      throw new ErrorAnswer(
        403,
        'forbidden_host',
        'on loopback the sandbox answers this only at a loopback address (127.0.0.1, localhost): use the address `whsvc sandbox start` printed',
      );
    }
  }

  /** Throws the 401 or 403 a request gets before it reaches a route. */
  check(req: IncomingMessage, query: URLSearchParams): void {
    if (this.token === undefined) {
      this.checkLoopbackHost(req);
      return;
    }
    const given = query.get('token') ?? cookieValue(req.headers.cookie, this.cookieName) ?? req.headers['x-whsvc-inspector-token'];
    if (typeof given !== 'string' || !sameSecret(given, this.token)) {
      throw new ErrorAnswer(
        401,
        'inspector_token_required',
        'this sandbox listens on a network address: the inspector needs the token `whsvc sandbox start` printed (open the inspector address it printed, with ?token=…)',
      );
    }
  }

  /** An action sent by another site's page is refused. */
  checkSameOrigin(req: IncomingMessage): void {
    const origin = req.headers.origin;
    if (origin === undefined) return;
    let host: string | undefined;
    try {
      host = new URL(origin).host;
    } catch {
      host = undefined;
    }
    if (host !== req.headers.host) throw new ErrorAnswer(403, 'cross_origin', 'the inspector takes actions only from its own page');
  }
}

function isLoopbackAddress(address: string): boolean {
  return address === '::1' || /^(::ffff:)?127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/i.test(address);
}

/** The host name of a Host header (`127.0.0.1:4010`, `[::1]:4010`, `localhost`). */
function hostName(host: string): string {
  const bracketed = /^(\[[^\]]*\])(?::\d*)?$/.exec(host);
  if (bracketed) return bracketed[1]!.toLowerCase();
  return host.replace(/:\d*$/, '').toLowerCase();
}

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
