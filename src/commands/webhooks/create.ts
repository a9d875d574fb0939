import type { Webhook } from '../../api/shapes.js';
import { createWebhook } from '../../api/endpoints.js';
import { allWebhooks } from '../../api/log.js';
import { Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { list, withScheme } from '../../cli/parse.js';
import { checkEventTypes, fetchCatalog } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { ReservedFile } from '../../files/user-file.js';
import { printJson } from '../../cli/output.js';
import type { Shown } from '../../cli/json-output.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { checkUrl, urlKey } from './shared/url.js';
import { redactUserinfo, webhookUrl } from '../../net.js';
import { createFailure, interruptedCreate } from './shared/may-exist.js';
import { lostSecret, secretFileText, undoCreate, withSecretFile } from './shared/secret-file.js';
import { activeLabel, webhookBlock } from './shared/view.js';
import { type BlockValue, keyValues, sanitize, shellWord } from '../../render/text.js';
import { laidOut, terminalColumns } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('create')
    .description('create a webhook; its signing secret is shown once')
    .addOption(
      new Option('--url <url>', 'the https endpoint (asked when missing on a terminal); localhost:3000/x means http://localhost:3000/x').argParser(withScheme),
    )
    .addOption(new Option('--events <types>', 'comma-separated event types (a checklist when missing on a terminal)').argParser(list))
    .option('--inactive', 'create it paused')
    .option('--secret-file <path>', 'write the signing secret to this file (mode 0600) instead of showing it')
    .option('--force', 'let --secret-file overwrite an existing file')
    .option('--dry-run', 'check the flags and say what would be created; nothing is sent but reads')
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid,sales_order.created',
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid --secret-file ./whsec.txt',
        'whsvc webhooks create --url https://example.com/hooks --events invoice.paid --dry-run',
      ),
    )
    .action(
      apiAction((deps, o) =>
        runF(
          createOptions(
            { url: o.url, events: o.events, inactive: Boolean(o.inactive), secretFile: o.secretFile, force: Boolean(o.force), dryRun: Boolean(o.dryRun) },
            deps.canPrompt,
          ),
          deps,
        ),
      ),
    );

export interface CreateOptions {
  url?: string | undefined;
  events?: string[] | undefined;
  inactive: boolean;
  secretFile?: string | undefined;
  force: boolean;
  /** Check, say what would be created, and send nothing but reads. */
  dryRun?: boolean | undefined;
}

/**
 * The flags as given, checked: a --secret-file that is a file to write, a URL the service would take, and, without a
 * terminal to ask on, the URL and the event types there.
 */
function createOptions(options: CreateOptions, canPrompt: boolean): CreateOptions {
  checkSecretFilePath(options.secretFile, 'the file to write the secret to');
  // `-` is stdin for a flag that reads; a secret written to stdout is what --secret-file exists to avoid.
  if (options.secretFile === '-')
    throw usageError(
      '--secret-file - would print the secret: give the path of a file to write it to',
      'or leave --secret-file out to see it once on the terminal',
    );
  const { url, events } = options;
  if (url === undefined && !canPrompt) throw usageError(`--url is required (${NO_PROMPT})`);
  if (url !== undefined && checkUrl(url) !== true) throw usageError(`--url ${JSON.stringify(redactUserinfo(url))}: ${checkUrl(url)}`);
  if ((events === undefined || events.length === 0) && !canPrompt) {
    throw usageError(`--events is required, e.g. --events invoice.paid,product.updated (${NO_PROMPT})`);
  }
  return options;
}

/** Why a created webhook's secret reached nobody under --jq, and what to do instead (lostSecret's `why` and `fix`). */
const SECRET_NOT_SHOWN: Record<Exclude<Shown, 'shown'>, [string, string]> = {
  failed: [
    '--jq failed on the webhook created, so its signing secret was not shown',
    'correct the --jq program (--json alone shows what it reads), or write the secret to a file with --secret-file, then run the command again',
  ],
  dropped: [
    "--jq's results leave out the created webhook's signing secret, which the service gives only once",
    'keep .signing_secret in the --jq program, or write the secret to a file with --secret-file PATH, then run the command again',
  ],
};

/** Creates the webhook `options` describe (createOptions has checked them), asking on a terminal for what is missing. */
export async function run(options: CreateOptions, deps: CommandDeps): Promise<number> {
  const { url, events } = await askForWhatIsMissing(options, deps);
  if (options.dryRun) {
    await warnOfAnotherAtUrl(deps, url, events);
    return printDryRun(deps, { url, events, active: !options.inactive }, options);
  }
  // Reserved before the webhook exists, so that a path that cannot be written is found while nothing has been created.
  const reserved = options.secretFile !== undefined ? ReservedFile.reserve(options.secretFile, '--secret-file', options.force) : undefined;
  const discardReserved = () => reserved?.discard();
  const webhook = await postWebhook(deps, { url, events, inactive: options.inactive }, discardReserved);
  if (reserved) {
    try {
      reserved.write(secretFileText(webhook.signing_secret));
    } catch (error) {
      throw await undoCreate(deps.api, webhook.id, options.secretFile!, error, discardReserved, 'create it again with a --secret-file that can be written');
    }
  }
  const shown = printCreated(deps, webhook, reserved ? options.secretFile : undefined);
  // --jq failed on the one answer that holds the secret, or left it out: the secret reached nobody, as when its file
  // cannot be written.
  if (shown !== 'shown' && !reserved) throw await lostSecret(deps.api, webhook.id, ...SECRET_NOT_SHOWN[shown], 'create it again');
  // After the create, not before: a read before it spent a request of a rate-limited client's second, and its POST,
  // never sent twice, then failed on a 429. Said all the same, and the webhook can be deleted.
  await warnOfAnotherAtUrl(deps, url, events, webhook.id);
  return 0;
}

/** The URL and the event types, asked on a terminal when not given (the catalog as a checklist), and checked. */
async function askForWhatIsMissing(options: CreateOptions, deps: CommandDeps): Promise<{ url: string; events: string[] }> {
  // An answer is checked as it is typed; a --url, by createOptions.
  const url = options.url ?? withScheme(await deps.prompter.input('Endpoint URL (https://…)', (answer) => checkUrl(withScheme(answer))));
  let events = options.events;
  if (events === undefined || events.length === 0) {
    const catalog = await fetchCatalog(deps);
    events = await deps.prompter.checkbox(
      'Events to subscribe to',
      // The answer line after the checklist lists the types (short), not their descriptions.
      catalog.map((e) => ({ name: `${e.type}  (${e.module}: ${e.desc})`, value: e.type, short: e.type })),
    );
  } else {
    await checkEventTypes(deps, events, '--events');
  }
  return { url, events };
}

/**
 * Another webhook that delivers to `url` already (URLs keyed as apply keys them; `created`, the one just made, aside) is said in one line on stderr, with
 * the event types that will then arrive there more than once, each with the webhooks that deliver it; nothing is asked. The account is read in one bounded walk of its
 * pages; a read that fails is said too, and the create goes on.
 */
async function warnOfAnotherAtUrl(deps: CommandDeps, url: string, events: string[], created?: string): Promise<void> {
  const key = urlKey(url);
  const others: Webhook[] = [];
  try {
    for await (const webhook of allWebhooks(deps.api)) if (urlKey(webhook.url) === key && webhook.id !== created) others.push(webhook);
  } catch (error) {
    deps.stderr.write(
      laidOut(deps.stderr, `${deps.errColors.yellow('!')} could not check whether another webhook delivers to ${url}: ${sanitize((error as Error).message)}\n`),
    );
    return;
  }
  if (others.length === 0) return;
  const ids = others.map((webhook) => sanitize(webhook.id)).join(', ');
  const who = others.length === 1 ? `webhook ${ids} delivers` : `webhooks ${ids} deliver`;
  const repeated = repeatedEvents(events, others);
  let what: string;
  if (repeated.length === 0) what = ' (other event types): webhooks apply, which knows webhooks by URL, refuses two at one URL';
  else if (others.length === 1) what = `: ${repeated[0]!.events.map(sanitize).join(', ')} will arrive there twice, once from each webhook`;
  else {
    const times = (n: number) => (n === 2 ? 'twice' : `${n} times`);
    const each = repeated.map(
      ({ events, from }, i) =>
        `${events.map(sanitize).join(', ')}${i === 0 ? ' will arrive there' : ''} ${times(from.length + 1)}, from ${from.map(sanitize).join(', ')} and the new one`,
    );
    what = `: ${each.join('; ')}`;
  }
  deps.stderr.write(laidOut(deps.stderr, `${deps.errColors.yellow('!')} ${who} to ${sanitize(others[0]!.url)} already${what}\n`));
}

/**
 * The event types of `events` that webhooks of `others` deliver too, grouped by the webhooks that do (`from`, in the
 * order listed), the groups in the order of `events`.
 */
function repeatedEvents(events: string[], others: Webhook[]): Array<{ events: string[]; from: string[] }> {
  const groups = new Map<string, { events: string[]; from: string[] }>();
  for (const event of events) {
    const from = others.filter((webhook) => (webhook.events ?? []).includes(event)).map((webhook) => webhook.id);
    if (from.length === 0) continue;
    const group = groups.get(from.join('\n')) ?? { events: [], from };
    group.events.push(event);
    groups.set(from.join('\n'), group);
  }
  return [...groups.values()];
}

/**
 * The create request. Ctrl-C while it is under way, or a failure after which
 * the webhook may exist (createFailure), says so; an answer without its
 * signing secret is an error (the secret cannot be had again). `discard`
 * undoes the secret file reserved for it.
 */
async function postWebhook(
  deps: CommandDeps,
  wanted: { url: string; events: string[]; inactive: boolean },
  discard: () => void,
): Promise<Webhook & { signing_secret: string }> {
  const again = 'create it again';
  const unregister = deps.interrupts.onInterrupt(() => {
    discard();
    deps.stderr.write(laidOut(deps.stderr, interruptedCreate(wanted.url, again)));
  });
  let webhook: Webhook;
  try {
    webhook = await createWebhook(deps.api, { url: wanted.url, events: wanted.events, ...(wanted.inactive ? { active: false } : {}) });
  } catch (error) {
    discard();
    throw createFailure(error, wanted.url, again);
  } finally {
    unregister();
  }
  const secret = webhook.signing_secret;
  if (typeof secret !== 'string' || secret === '') {
    discard();
    throw new CliError(
      `webhook ${sanitize(webhook.id)} was created, but the service's answer holds no signing_secret`,
      ExitCode.failure,
      `delete it (\`whsvc webhooks delete ${shellWord(webhook.id)}\`) and create it again`,
    );
  }
  return { ...webhook, signing_secret: secret };
}

/**
 * What would be created, once checked as the create is (the secret file as it would be reserved, without the file
 * beside it that the reservation writes); nothing is sent. --json: the webhook's fields, `dry_run`, and where its
 * secret would go (null: shown once).
 */
function printDryRun(deps: CommandDeps, wanted: { url: string; events: string[]; active: boolean }, options: CreateOptions): number {
  if (options.secretFile !== undefined) ReservedFile.check(options.secretFile, '--secret-file', options.force);
  const url = webhookUrl(wanted.url);
  const webhook = { url: 'href' in url ? url.href : wanted.url, events: wanted.events, active: wanted.active };
  if (deps.json) {
    printJson(deps, { dry_run: true, ...webhook, signing_secret_file: options.secretFile ?? null });
  } else {
    const secret = options.secretFile === undefined ? 'shown once, when it is created' : `written to ${options.secretFile} (mode 0600)`;
    deps.stdout.write(
      keyValues(
        [
          ['url', webhook.url],
          ['events', webhook.events.join(', ')],
          ['status', { styled: activeLabel(webhook.active, deps.colors) }],
          ['signing secret', secret],
        ],
        deps.colors.dim,
        terminalColumns(deps.stdout),
      ),
    );
  }
  deps.stderr.write(laidOut(deps.stderr, 'Dry run: nothing was sent.\n'));
  return 0;
}

/**
 * The webhook created; its secret shown once, unless it went to a file (then named instead, --json included). What
 * became of it: with --jq, the secret not shown when the filter failed or left it out (Shown).
 */
function printCreated(deps: CommandDeps, webhook: Webhook & { signing_secret: string }, secretFile: string | undefined): Shown {
  if (deps.json) {
    // The secret is in the file: CI logs that keep stdout must never hold it; the object says where it went.
    return secretFile !== undefined ? printJson(deps, withSecretFile(webhook, secretFile)) : printJson(deps, webhook, webhook.signing_secret);
  }
  // The secret shown once is copied: whole, on a line of its own where it does not fit after its key.
  const secretPair: Array<[string, BlockValue]> = secretFile !== undefined ? [] : [['signing secret', webhook.signing_secret]];
  deps.stdout.write(webhookBlock(webhook, deps.colors, deps.serviceNow(), secretPair, terminalColumns(deps.stdout)));
  if (secretFile !== undefined) {
    deps.stderr.write(laidOut(deps.stderr, `${deps.errColors.green('✓')} Signing secret written to ${secretFile} (mode 0600). It is not shown again.\n`));
  } else {
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `${deps.errColors.yellow('!')} Save the signing secret now: it is shown only this once. (--secret-file PATH writes it to a file instead.)\n`,
      ),
    );
  }
  return 'shown';
}
