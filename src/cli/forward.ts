import { usageError } from './errors.js';

/** The `--forward-to` URL of `listen` and `deliveries tail`: an http(s) URL, or a usage error that shows one. */
export function forwardUrl(value: string): URL {
  let target: URL;
  try {
    target = new URL(value);
  } catch {
    throw usageError(`--forward-to ${JSON.stringify(value)} is not a URL`, 'for example --forward-to http://localhost:3000/webhooks');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    throw usageError(
      `--forward-to ${JSON.stringify(value)}: only http:// and https:// URLs can receive deliveries`,
      'for example --forward-to http://localhost:3000/webhooks',
    );
  }
  return target;
}
