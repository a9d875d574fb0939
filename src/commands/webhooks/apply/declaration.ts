// The webhooks a file declares, for `webhooks apply`: read (JSON, or YAML for .yaml and .yml), checked whole before
// anything is sent, each entry's URL in the form the service stores it (net.ts webhookUrl), so that keys compare.
import { usageError } from '../../../cli/errors.js';
import { didYouMean } from '../../../cli/suggest.js';
import { webhookUrl } from '../../../net.js';

/** One webhook as the file declares it. */
export interface Declared {
  /** The URL as the service keeps it: the key. */
  url: string;
  events: string[];
  active: boolean;
  /** Where it is in the file, for messages: `webhooks[2]`. */
  at: string;
}

const ENTRY_FIELDS = ['url', 'events', 'active'];

/** Whether a file is read as YAML: by its name (stdin is YAML, which reads JSON too). */
export const isYaml = (name: string): boolean => /\.ya?ml$/i.test(name) || name === '-';

/**
 * The file's text as data. JSON by JSON.parse (its own messages), then read
 * again by js-yaml only for what JSON.parse lets through: a key given twice,
 * whose last value JSON.parse keeps without a word (a second "webhooks": []
 * would make --prune delete them all). YAML by js-yaml (YAML 1.2's core
 * schema: `no` is a string, not false, so it is caught as one). js-yaml is
 * loaded for apply's file only.
 */
export async function parseDeclarationText(text: string, name: string): Promise<unknown> {
  let data: unknown;
  if (!isYaml(name)) {
    try {
      data = JSON.parse(text) as unknown;
    } catch (error) {
      throw usageError(`${name} is not JSON: ${(error as Error).message}`, 'a YAML file is read as YAML when its name ends in .yaml or .yml');
    }
  }
  const { load, JSON_SCHEMA } = await import('js-yaml');
  try {
    const read = load(text, isYaml(name) ? {} : { schema: JSON_SCHEMA });
    return isYaml(name) ? read : data;
  } catch (error) {
    const { reason, mark } = error as { reason?: string; mark?: { line: number; column: number } };
    const where = mark ? ` (line ${mark.line + 1}, column ${mark.column + 1})` : '';
    throw usageError(`${name} is not ${isYaml(name) ? 'YAML' : 'JSON whose keys are each given once'}: ${reason ?? (error as Error).message}${where}`);
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** What is wrong with one entry, said of where it is. */
const problem = (name: string, at: string, why: string, hint?: string) => usageError(`${name}: ${at}: ${why}`, hint);

/**
 * The declared webhooks, each checked: an object with `url` (an https URL, as
 * for webhooks create), `events` (event types, none twice), and `active`
 * (true or false, default true), and nothing else (a misspelt field would
 * otherwise be ignored). Two entries for one URL are an error naming both.
 */
export function declaredWebhooks(data: unknown, name: string): Declared[] {
  const example = 'the file is {"webhooks": [{"url": "https://…", "events": ["invoice.paid"], "active": true}, …]}';
  if (!isRecord(data)) throw usageError(`${name}: the file must hold an object with a "webhooks" list`, example);
  for (const key of Object.keys(data)) {
    if (key !== 'webhooks') throw usageError(`${name}: unknown field ${JSON.stringify(key)} at the top${didYouMean(key, ['webhooks'])}`, example);
  }
  if (!Array.isArray(data.webhooks)) throw usageError(`${name}: "webhooks" must be a list`, example);
  const byUrl = new Map<string, string>();
  return data.webhooks.map((entry: unknown, index: number) => {
    const at = `webhooks[${index}]`;
    if (!isRecord(entry)) throw problem(name, at, 'each webhook is an object with url and events', example);
    for (const key of Object.keys(entry)) {
      if (!ENTRY_FIELDS.includes(key))
        throw problem(name, at, `unknown field ${JSON.stringify(key)}${didYouMean(key, ENTRY_FIELDS)} (a webhook has url, events and active)`);
    }
    const checked = webhookUrl(entry.url);
    if ('problem' in checked) throw problem(name, `${at}.url`, `the URL ${checked.problem}`);
    const events = entry.events;
    if (!Array.isArray(events) || events.length === 0 || events.some((event) => typeof event !== 'string' || event === '')) {
      throw problem(name, `${at}.events`, 'must be a list of one or more event types', 'for example events: [invoice.paid] (whsvc events lists them)');
    }
    const seen = new Set<string>();
    const twice = (events as string[]).find((event) => seen.size === seen.add(event).size);
    if (twice !== undefined) throw problem(name, `${at}.events`, `${twice} is listed twice`);
    if (entry.active !== undefined && typeof entry.active !== 'boolean') throw problem(name, `${at}.active`, 'must be true or false');
    const earlier = byUrl.get(checked.href);
    if (earlier !== undefined) {
      throw problem(name, at, `${checked.href} is declared twice, at ${earlier} and ${at}`, 'a webhook is known by its URL: declare each URL once');
    }
    byUrl.set(checked.href, at);
    return { url: checked.href, events: events as string[], active: entry.active ?? true, at };
  });
}
