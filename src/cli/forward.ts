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
