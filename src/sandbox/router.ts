import { ErrorAnswer } from './http.js';

/** A path pattern's segments: literals, and `:name` for a parameter. */
type Pattern = string[];

interface Route<H> {
  method: string;
  pattern: Pattern;
  handler: H;
}

/** What a request's method and path found: its handler and the parameters its path named. */
export interface Match<H> {
  handler: H;
  params: Record<string, string>;
}

/**
 * The sandbox's one router, for the API and the inspector alike: a table of
 * method and path pattern (`v1/webhooks/:id/test`), matched segment by
 * segment. A path no route has is 404; a path some route has, asked with
 * another method, is 405 with `Allow`, as the interface's answers are.
 * HEAD is answered wherever GET is (RFC 9110, 9.3.2: `curl -I`, uptime
 * probes), by the GET route: the same status and headers, and node:http
 * leaves out the body of an answer to HEAD.
 */
export class Router<H> {
  private readonly routes: Route<H>[] = [];

  /** `literals` are path segments never taken as a parameter (the interface's `webhook-events`, say). */
  constructor(private readonly literals: ReadonlySet<string> = new Set()) {}

  add(method: string, path: string, handler: H): this {
    this.routes.push({ method, pattern: path.split('/'), handler });
    return this;
  }

  /** The route for this method and these (decoded) path segments; throws the 404 or 405 when there is none. */
  match(method: string, segments: string[], describe = `endpoint: ${method} /${segments.join('/')}`): Match<H> {
    const found = this.routes.flatMap((route) => {
      const params = this.params(route.pattern, segments);
      return params ? [{ route, params }] : [];
    });
    if (found.length === 0) throw new ErrorAnswer(404, 'not_found', `no such ${describe}`);
    const match = found.find((m) => m.route.method === (method === 'HEAD' ? 'GET' : method));
    if (!match) {
      const allow = [...new Set(found.flatMap((m) => (m.route.method === 'GET' ? ['GET', 'HEAD'] : [m.route.method])))].join(', ');
      throw new ErrorAnswer(405, 'method_not_allowed', `${method} is not allowed here; use ${allow}`, { allow });
    }
    return { handler: match.route.handler, params: match.params };
  }

  private params(pattern: Pattern, segments: string[]): Record<string, string> | undefined {
    if (pattern.length !== segments.length) return undefined;
    const params: Record<string, string> = {};
    for (let i = 0; i < pattern.length; i++) {
      const expected = pattern[i]!;
      const actual = segments[i]!;
      if (expected.startsWith(':')) {
        if (this.literals.has(actual) || actual === '') return undefined;
        params[expected.slice(1)] = actual;
      } else if (expected !== actual) {
        return undefined;
      }
    }
    return params;
  }
}
