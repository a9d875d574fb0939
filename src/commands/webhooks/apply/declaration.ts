// The webhooks a file declares, for `webhooks apply`: read (JSON, or YAML for .yaml and .yml), checked whole before
// anything is sent (every mistake at once), each entry's URL in the form the service stores it (net.ts webhookUrl), so that keys compare.
import { type CliError, usageError } from '../../../cli/errors.js';
import { closest, didYouMean } from '../../../cli/suggest.js';
import { webhookUrl } from '../../../net.js';
import { sanitize } from '../../../render/text.js';

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

/** One mistake of the file: where (`webhooks[2].events`, and the entry's URL where it has one to read; '' for the file), and why. */
export interface Problem {
  at: string;
  url?: string | undefined;
  why: string;
  hint?: string | undefined;
}

/** The file's webhooks checked: those fit to plan with, and every mistake found. */
export interface Checked {
  webhooks: Declared[];
  problems: Problem[];
  /** The event types of each entry that lists them readably (its URL wrong or not), to check against the catalog. */
  subscribed: Subscribed[];
}

/** An entry's event types, and where it is. */
type Subscribed = { at: string; url?: string | undefined; events: string[] };

const EXAMPLE = 'the file is {"webhooks": [{"url": "https://…", "events": ["invoice.paid"], "active": true}, …]}';
const EVENTS_HINT = 'for example events: [invoice.paid] (whsvc events lists them)';

/**
 * The declared webhooks, each checked, every mistake kept (a file is checked
 * whole, not one mistake a run): an object with `url` (an https URL, as for
 * webhooks create), `events` (event types, none twice), and `active` (true or
 * false, default true), and nothing else (a misspelt field would otherwise be
 * ignored). Two entries for one URL are a mistake naming both. Only the
 * entries with no mistake are in `webhooks`.
 */
export function checkDeclaration(data: unknown): Checked {
  if (!isRecord(data))
    return { webhooks: [], subscribed: [], problems: [{ at: '', why: 'the file must hold an object with a "webhooks" list', hint: EXAMPLE }] };
  const problems: Problem[] = [];
  for (const key of Object.keys(data)) {
    if (key !== 'webhooks') problems.push({ at: '', why: `unknown field ${JSON.stringify(key)} at the top${didYouMean(key, ['webhooks'])}`, hint: EXAMPLE });
  }
  if (!Array.isArray(data.webhooks))
    return { webhooks: [], subscribed: [], problems: [...problems, { at: '', why: '"webhooks" must be a list', hint: EXAMPLE }] };
  const byUrl = new Map<string, string>();
  const webhooks: Declared[] = [];
  const subscribed: Subscribed[] = [];
  for (const [index, entry] of (data.webhooks as unknown[]).entries()) {
    const at = `webhooks[${index}]`;
    const before = problems.length;
    const declared = checkEntry(entry, at, problems, subscribed);
    if (declared === undefined || problems.length > before) continue;
    const earlier = byUrl.get(declared.url);
    if (earlier !== undefined) {
      problems.push({ at, why: `${declared.url} is declared twice, at ${earlier} and ${at}`, hint: 'a webhook is known by its URL: declare each URL once' });
      continue;
    }
    byUrl.set(declared.url, at);
    webhooks.push(declared);
  }
  return { webhooks, problems, subscribed };
}

/**
 * One entry, its mistakes added to `problems` and its event types to `subscribed`; the webhook it declares when its
 * URL and events can be read.
 */
function checkEntry(entry: unknown, at: string, problems: Problem[], subscribed: Subscribed[]): Declared | undefined {
  if (!isRecord(entry)) {
    problems.push({ at, why: 'each webhook is an object with url and events', hint: EXAMPLE });
    return undefined;
  }
  const checked = webhookUrl(entry.url);
  const url = 'href' in checked ? checked.href : undefined;
  // A misspelt field (`event`) is one mistake: said as unknown, not again as the field it meant being missing.
  const meant = new Set<string>();
  for (const key of Object.keys(entry)) {
    if (ENTRY_FIELDS.includes(key)) continue;
    const guess = closest(key, ENTRY_FIELDS);
    if (guess !== undefined && entry[guess] === undefined) meant.add(guess);
    problems.push({ at, url, why: `unknown field ${JSON.stringify(key)}${didYouMean(key, ENTRY_FIELDS)} (a webhook has url, events and active)` });
  }
  if ('problem' in checked && !meant.has('url')) problems.push({ at: `${at}.url`, why: `the URL ${checked.problem}` });
  const events = entry.events;
  const listed = Array.isArray(events) && events.length > 0 && events.every((event) => typeof event === 'string' && event !== '');
  if (listed) {
    const types = events as string[];
    subscribed.push({ at: `${at}.events`, url, events: types });
    const twice = new Set(types.filter((event, index) => types.indexOf(event) !== index));
    for (const event of twice) problems.push({ at: `${at}.events`, url, why: `${sanitize(event)} is listed twice` });
  } else if (!meant.has('events')) {
    problems.push({ at: `${at}.events`, url, why: 'must be a list of one or more event types', hint: EVENTS_HINT });
  }
  if (entry.active !== undefined && typeof entry.active !== 'boolean') problems.push({ at: `${at}.active`, url, why: 'must be true or false' });
  if ('problem' in checked || !listed) return undefined;
  return { url: checked.href, events: events as string[], active: (entry.active as boolean | undefined) ?? true, at };
}

/** The event types the catalog lacks, each a mistake of the entry that names it. */
export function unknownEventTypes(subscribed: Subscribed[], types: readonly string[]): Problem[] {
  return subscribed.flatMap(({ at, url, events }) =>
    [...new Set(events)]
      .filter((event) => !types.includes(event))
      .map((event) => ({
        at,
        url,
        why: `${JSON.stringify(sanitize(event))} is not an event type of the service${didYouMean(event, types)}`,
        hint: EVENTS_HINT,
      })),
  );
}

/**
 * Every mistake of the file as one usage error (exit 2): one a line, each
 * saying where it is; one alone in one line, as any usage error.
 */
export function problemsError(name: string, problems: Problem[]): CliError {
  const where = (problem: Problem) => `${problem.at}${problem.url === undefined ? '' : ` (${problem.url})`}${problem.at === '' ? '' : ': '}${problem.why}`;
  const hints = [...new Set(problems.flatMap((problem) => (problem.hint === undefined ? [] : [problem.hint])))];
  const hint = hints.length === 0 ? undefined : hints.join('; ');
  if (problems.length === 1) return usageError(`${name}: ${where(problems[0]!)}`, hint);
  return usageError(`${name} has ${problems.length} mistakes; nothing was changed:\n${problems.map((problem) => `  ${where(problem)}`).join('\n')}`, hint);
}

/** The declared webhooks, or a usage error naming every mistake of the file (checkDeclaration). */
export function declaredWebhooks(data: unknown, name: string): Declared[] {
  const { webhooks, problems } = checkDeclaration(data);
  if (problems.length > 0) throw problemsError(name, problems);
  return webhooks;
}
