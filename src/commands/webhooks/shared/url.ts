import { webhookUrl } from '../../../net.js';

/** The endpoint URL as the service would take it: true, or why not (asked again at the prompt). */
export function checkUrl(value: string): true | string {
  const checked = webhookUrl(value);
  return 'problem' in checked ? `the URL ${checked.problem}` : true;
}

/**
 * The key of a URL the service sent, to compare with another (a file's, a flag's: webhookUrl's form): the sandbox
 * stores URLs so already; another service may not. Webhooks are known by it in `apply`, `export` and `create`.
 */
export function urlKey(url: string): string {
  try {
    return new URL(url).href;
  } catch {
    return url;
  }
}
