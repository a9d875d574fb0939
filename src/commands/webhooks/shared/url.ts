import { webhookUrl } from '../../../net.js';

/** The endpoint URL as the service would take it: true, or why not (asked again at the prompt). */
export function checkUrl(value: string): true | string {
  const checked = webhookUrl(value);
  return 'problem' in checked ? `the URL ${checked.problem}` : true;
}
