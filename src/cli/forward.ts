import { InvalidArgumentError } from '@commander-js/extra-typings';
import { usageError } from './errors.js';

/** The URL deliveries are sent on to (`--forward-to` of `listen` and `deliveries tail`, `--to` of `replay`): an http(s) URL, or a usage error that shows one. */
export function forwardUrl(value: string, flag = '--forward-to'): URL {
  let target: URL;
  try {
    target = new URL(value);
  } catch {
    throw usageError(`${flag} ${JSON.stringify(value)} is not a URL`, `for example ${flag} http://localhost:3000/webhooks`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw usageError(
      `${flag} ${JSON.stringify(value)}: only http:// and https:// URLs can receive deliveries`,
      `for example ${flag} http://localhost:3000/webhooks`,
    );
  }
  return target;
}

/**
 * Where deliveries of some event types go: `invoice.*=http://localhost:3000/invoices`
 * (`*` matches within a name: `invoice.*` takes `invoice.paid`, not
 * `invoice.paid.late`), or a bare URL, the route of everything no pattern
 * takes.
 */
export interface ForwardRoute {
  /** null: a bare URL. */
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
  const pattern = hasPattern ? value.slice(0, separator).trim() : null;
  const urlText = hasPattern ? value.slice(separator + 1).trim() : value;
  if (pattern !== null && !/^[A-Za-z0-9_.*-]+$/.test(pattern)) {
    throw new InvalidArgumentError(`the pattern ${JSON.stringify(pattern)} may hold letters, digits, dots, dashes, underscores and *, as in invoice.*=URL.`);
  }
  let url: URL;
  try {
    url = forwardUrl(urlText);
  } catch (error) {
    throw new InvalidArgumentError(
      `${(error as Error).message.replace(/^--forward-to /, '')}; give a URL, or PATTERN=URL such as invoice.*=http://localhost:3000/invoices.`,
    );
  }
  const regex = pattern === null ? undefined : new RegExp(`^${pattern.replace(/[.+?^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '[^.]*')}$`);
  return { pattern, url, label: pattern ?? '*', matches: (event) => (regex === undefined ? true : event !== undefined && regex.test(event)) };
}

/** Routes as given, refused when one can never be taken: a second bare URL, or a pattern given twice. */
export function checkRoutes(routes: readonly ForwardRoute[]): ForwardRoute[] {
  const bare = routes.filter((route) => route.pattern === null);
  if (bare.length > 1)
    throw usageError(
      `--forward-to takes one bare URL (the route of everything else), not ${bare.length}: ${bare.map((route) => route.url.href).join(', ')}`,
      "give the others a pattern: --forward-to 'invoice.*=URL'",
    );
  const twice = routes.find((route, i) => route.pattern !== null && routes.findIndex((other) => other.pattern === route.pattern) !== i);
  if (twice) throw usageError(`--forward-to gives the pattern ${twice.pattern} twice: only the first could ever be taken`);
  return [...routes];
}

/** The route a delivery of `event` takes: the first pattern that matches it, else the bare URL, else none. */
export function routeFor(routes: readonly ForwardRoute[], event: string | undefined): ForwardRoute | undefined {
  return routes.find((route) => route.pattern !== null && route.matches(event)) ?? routes.find((route) => route.pattern === null);
}

/** The routes as lines name them: `invoice.*=http://…`, a bare URL as it is. */
export const describeRoutes = (routes: readonly ForwardRoute[]): string =>
  routes.map((route) => (route.pattern === null ? route.url.href : `${route.pattern}=${route.url.href}`)).join(', ');

/** How long a delivery sent on to an app (listen and tail --forward-to, replay) waits for its answer unless --request-timeout says otherwise: the service's own limit. */
export const SENT_ON_TIMEOUT_MS = 10_000;
