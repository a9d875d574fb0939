import { InvalidArgumentError } from '@commander-js/extra-typings';
import { redactUserinfo } from '../net.js';
import { usageError } from '../cli/errors.js';
import { withScheme } from '../cli/parse.js';

/** A forward URL as every message and line shows it: a user name or password in it masked. */
export const shownUrl = (url: URL | string): string => redactUserinfo(typeof url === 'string' ? url : url.href);

/** The URL deliveries are sent on to (`--forward-to` of `listen` and `deliveries tail`, `--to` of `replay`): an http(s) URL, or a usage error that shows one. */
export function forwardUrl(value: string, flag = '--forward-to'): URL {
  const target = parsedForwardUrl(value);
  if (typeof target === 'string')
    throw usageError(`${flag} ${JSON.stringify(shownUrl(value))}: ${target}`, `for example ${flag} http://localhost:3000/webhooks`);
  return target;
}

/** The URL, or why it cannot receive deliveries. */
function parsedForwardUrl(value: string): URL | string {
  let target: URL;
  try {
    target = new URL(withScheme(value));
  } catch {
    return 'not a URL';
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return 'only http:// and https:// URLs can receive deliveries';
  return target;
}

/**
 * Where deliveries of some event types go: `invoice.*=http://localhost:3000/invoices`
 * (`*` matches within a name: `invoice.*` takes `invoice.paid`, not
 * `invoice.paid.late`), or a bare URL (or `*=URL`), the route of every
 * delivery the routes before it do not take.
 */
export interface ForwardRoute {
  /** null: a bare URL, which takes every delivery. */
  pattern: string | null;
  url: URL;
  /** How lines name it: the pattern, or `*` for a bare URL. */
  label: string;
  matches: (event: string | undefined) => boolean;
}

/** A commander parser for `--forward-to [PATTERN=]URL`. */
export function forwardRoute(value: string): ForwardRoute {
  const separator = value.indexOf('=');
  const scheme = value.indexOf('://');
  const hasPattern = separator > 0 && (scheme < 0 || separator < scheme);
  const given = hasPattern ? value.slice(0, separator).trim() : null;
  const pattern = given === '*' ? null : given;
  const urlText = hasPattern ? value.slice(separator + 1).trim() : value;
  if (pattern !== null && !/^[A-Za-z0-9_.*-]+$/.test(pattern)) {
    throw new InvalidArgumentError(`the pattern ${JSON.stringify(pattern)} may hold letters, digits, dots, dashes, underscores and *, as in invoice.*=URL.`);
  }
  const url = parsedForwardUrl(urlText);
  // commander echoes the value before this reason, its credentials masked (usageMessage).
  if (typeof url === 'string') throw new InvalidArgumentError(`${url}; give a URL, or PATTERN=URL such as invoice.*=http://localhost:3000/invoices.`);
  const regex = pattern === null ? undefined : new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '[^.]*')}$`);
  return { pattern, url, label: pattern ?? '*', matches: (event) => (regex === undefined ? true : event !== undefined && regex.test(event)) };
}

/**
 * Routes as given, refused when one can never be taken because a route before
 * it takes every delivery it would: a bare URL takes all (so it comes last),
 * `invoice.*` takes `invoice.paid` and `invoice.p*`, a pattern takes itself.
 */
export function checkRoutes(routes: readonly ForwardRoute[]): ForwardRoute[] {
  routes.forEach((route, i) => {
    const earlier = routes.slice(0, i).find((before) => shadows(before, route));
    if (earlier === undefined) return;
    const takes = earlier.pattern === null ? 'every delivery' : `every event type ${route.pattern} matches`;
    throw usageError(
      `--forward-to ${describeRoute(route)} could never be taken: the earlier route ${describeRoute(earlier)} takes ${takes}`,
      earlier.pattern === null
        ? "a bare URL takes what the routes before it do not: give one, last, and give the others a pattern first, as in --forward-to 'invoice.*=URL' --forward-to URL"
        : 'routes are tried in the order given: put the narrower one first',
    );
  });
  return [...routes];
}

/**
 * Whether `earlier` takes every delivery `later` could. For patterns: `*` matches any run of
 * characters but dots, and a pattern's own `*` is such a run, so `earlier` takes all of `later`
 * exactly when it matches `later`'s text (`invoice.*` matches `invoice.p*`; `invoice.p*` does not match `invoice.*`).
 */
function shadows(earlier: ForwardRoute, later: ForwardRoute): boolean {
  if (earlier.pattern === null) return true;
  return later.pattern !== null && earlier.matches(later.pattern);
}

/** The route a delivery of `event` takes: the first that matches it (a bare URL, last, matches every one), else none. */
export function routeFor(routes: readonly ForwardRoute[], event: string | undefined): ForwardRoute | undefined {
  return routes.find((route) => route.matches(event));
}

const describeRoute = (route: ForwardRoute): string => (route.pattern === null ? shownUrl(route.url) : `${route.pattern}=${shownUrl(route.url)}`);

/** The routes as lines name them: `invoice.*=http://…`, a bare URL as it is; credentials masked. */
export const describeRoutes = (routes: readonly ForwardRoute[]): string => routes.map(describeRoute).join(', ');
