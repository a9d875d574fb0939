import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorAnswer } from '../http.js';
import type { InspectorAccess } from './access.js';
import { checkQuery } from './query.js';

const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
};

/**
 * The inspector's page and its two files, loaded at the first request for
 * them (a sandbox nobody looks at never loads them). Without its token on a
 * network address, the page says how to open it.
 */
export class PageFiles {
  private assets: Promise<{ html: string; css: string; js: string }> | undefined;

  constructor(private readonly access: InspectorAccess) {}

  async page(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    checkQuery(query, []);
    try {
      this.access.check(req, query);
    } catch (error) {
      if (!(error instanceof ErrorAnswer) || error.status !== 401) throw error;
      const text = `<!doctype html><meta charset="utf-8"><title>whsvc sandbox inspector</title>
<p>This sandbox listens on a network address, so its inspector needs the token that <code>whsvc sandbox start</code> printed.
Open the inspector address it printed (it ends in <code>/?token=…</code>).</p>\n`;
      res.writeHead(401, { 'content-type': 'text/html; charset=utf-8', ...PAGE_HEADERS, 'cache-control': 'no-store' });
      res.end(text);
      return;
    }
    const cookie = this.access.tokenCookie(query);
    if (cookie !== undefined) {
      // The token becomes a cookie of this page only, and leaves the address bar (and the history).
      res.writeHead(303, { location: '/', 'set-cookie': cookie, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      res.end();
      return;
    }
    const { html } = await this.load();
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-length': Buffer.byteLength(html), 'cache-control': 'no-cache', ...PAGE_HEADERS });
    res.end(html);
  }

  async asset(res: ServerResponse, query: URLSearchParams, kind: 'js' | 'css'): Promise<void> {
    checkQuery(query, []);
    const loaded = await this.load();
    const body = kind === 'js' ? loaded.js : loaded.css;
    res.writeHead(200, {
      'content-type': kind === 'js' ? 'text/javascript; charset=utf-8' : 'text/css; charset=utf-8',
      // Said before the body, so that HEAD tells the same length as GET.
      'content-length': Buffer.byteLength(body),
      'cache-control': 'no-cache',
      'x-content-type-options': 'nosniff',
    });
    res.end(body);
  }

  private load() {
    this.assets ??= import('./assets.js').then((module) => module.loadAssets());
    this.assets.catch(() => (this.assets = undefined));
    return this.assets;
  }
}
