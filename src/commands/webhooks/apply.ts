import { join } from 'node:path';
import { Command } from '@commander-js/extra-typings';
import { deleteWebhook, updateWebhook } from '../../api/endpoints.js';
import { ApiError } from '../../api/errors.js';
import { allWebhooks } from '../../api/log.js';
import type { Webhook } from '../../api/shapes.js';
import { apiAction } from '../../cli/actions.js';
import { catalog } from '../../cli/catalog.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { printJson } from '../../cli/output.js';
import { readFileFlag } from '../../cli/stdin.js';
import { ensureDirectory, ReservedFile } from '../../files/user-file.js';
import { counted, countText, sanitize, shellWord } from '../../render/text.js';
import { checkDeclaration, type Declared, parseDeclarationText, problemsError, unknownEventTypes } from './apply/declaration.js';
import { changesAnything, planApply, type Changes, type Plan } from './apply/plan.js';
import { checkJournal, Journal, type JournalCheck, type Named, removeSecretFile, secretFileName, secretFileRemoval } from './apply/secret-dir.js';
import { createFailure, interruptedCreate } from './shared/may-exist.js';
import { takingTurns } from './shared/account-lock.js';
import { createForSecret } from './shared/create-webhook.js';
import { secretFileText, undoCreate } from './shared/secret-file.js';
import { hangOf, laidOut, terminalColumns, wrapLine } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('apply')
    .description("make the account's webhooks as a file declares them, keyed by URL: create, update, and with --prune delete")
    .requiredOption('-f, --file <file>', 'the declared webhooks: JSON, or YAML (.yaml, .yml); - reads stdin')
    .option('--dry-run', 'print the plan and send nothing')
    .option('--prune', 'also delete the webhooks the file does not name (asked first on a terminal; --yes elsewhere)')
    .option('-y, --yes', 'delete without asking: what --prune deletes')
    .option('--secret-dir <dir>', 'where the signing secret of each webhook created goes, as <id>.secret (mode 0600); needed when the plan creates')
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks apply -f webhooks.yaml --dry-run',
        'whsvc webhooks apply -f webhooks.yaml --secret-dir ./secrets',
        'whsvc webhooks apply -f webhooks.json --prune --yes --secret-dir ./secrets --json',
      ),
    )
    .action(
      apiAction((deps, o) => {
        if (o.secretDir?.trim() === '') throw usageError('--secret-dir is empty: give the directory to write the signing secrets to');
        return runF(
          {
            file: o.file,
            dryRun: Boolean(o.dryRun),
            prune: Boolean(o.prune),
            yes: Boolean(o.yes),
            secretDir: o.secretDir,
            stop: () => deps.interrupts.graceful(),
          },
          deps,
        );
      }),
    );

export interface ApplyOptions {
  file: string;
  dryRun: boolean;
  prune: boolean;
  /** Deletes what --prune deletes without asking. */
  yes?: boolean | undefined;
  secretDir?: string | undefined;
  /** Ctrl-C ends the run after the change under way, and says what was done and what not. */
  stop?: (() => AbortSignal) | undefined;
}

/** What a run did, as --json prints it. */
interface Outcome {
  created: Array<{ id: string; url: string; signing_secret_file: string }>;
  updated: Array<{ id: string; url: string }>;
  deleted: Array<{ id: string; url: string; removed_secret_file: string | null }>;
  not_done: Array<{ action: 'create' | 'update' | 'delete'; id?: string; url: string }>;
  error: string | null;
  interrupted: boolean;
}

/** A webhook to create, as the plan has it. */
export type CreateStep = { action: 'create'; url: string; events: string[]; active: boolean };

type Step = CreateStep | { action: 'update'; id: string; url: string; changes: Changes } | { action: 'delete'; id: string; url: string };

export async function run(options: ApplyOptions, deps: CommandDeps): Promise<number> {
  if (options.dryRun) return applyNow(options, deps);
  return takingTurns(deps, () => applyNow(options, deps));
}

/** What apply read and plans: the account's webhooks, the plan, and with a --secret-dir its journal and the webhooks it left without a secret. */
export interface Planned {
  account: Webhook[];
  plan: Plan;
  secretless: Named[] | null;
  journal: Journal | undefined;
}

/**
 * The plan that makes the account as `data` declares it (`name` says where it was declared, for messages): every
 * mistake of the declaration at once, then the account read whole (a bounded walk) and planned against. Nothing is
 * changed. For apply's file, and for `whsvc mcp`'s webhooks_apply, whose declared set comes in the tool call.
 */
export async function planDeclared(data: unknown, name: string, options: Pick<ApplyOptions, 'prune' | 'secretDir'>, deps: CommandDeps): Promise<Planned> {
  const declared = await declaredAndKnown(data, name, deps);
  const account: Webhook[] = [];
  for await (const webhook of allWebhooks(deps.api)) account.push(webhook);
  const plan = planApply(declared, account, options.prune);
  const check = options.secretDir === undefined ? null : checkJournal(options.secretDir, account);
  const secretless = check === null ? null : leftWithoutSecret(check, plan);
  const journal = check === null ? undefined : new Journal(options.secretDir!, check);
  return { account, plan, secretless, journal };
}

async function applyNow(options: ApplyOptions, deps: CommandDeps): Promise<number> {
  const name = options.file === '-' ? 'stdin' : options.file;
  const text = (await readFileFlag('-f', options.file, deps.stdin)).toString('utf8');
  const data = await parseDeclarationText(text, options.file === '-' ? '-' : name);
  const { plan, secretless, journal } = await planDeclared(data, name, options, deps);
  if (!options.dryRun && plan.create.length > 0 && options.secretDir === undefined) {
    throw usageError(
      `the plan creates ${counted(plan.create.length, 'webhook')}, whose signing secrets are given once: --secret-dir DIR is where they go (never to the output); nothing was changed`,
      `see the plan with --dry-run, or give the secrets a directory: whsvc webhooks apply -f ${shellWord(options.file)} --secret-dir ./secrets`,
    );
  }
  if (!deps.json) deps.stdout.write(planText(plan, name, deps, options.secretDir, terminalColumns(deps.stdout)));
  if (options.dryRun || !changesAnything(plan)) {
    if (deps.json) printJson(deps, applyDocument(options, plan, options.dryRun ? null : emptyOutcome(), secretless));
    else if (options.dryRun)
      deps.stderr.write(laidOut(deps.stderr, `${changesAnything(plan) ? 'Dry run: nothing was sent.' : 'Dry run: nothing would change.'}\n`));
    if (options.dryRun) return endOfDryRun(secretless, options.secretDir, deps);
    journal?.settle();
    return endOf(secretless, options.secretDir);
  }
  // A delete cannot be undone, and a file copied from CI to a terminal may name fewer webhooks than the account has.
  if (plan.delete.length > 0 && !options.yes) {
    const what = `the plan deletes ${counted(plan.delete.length, 'webhook')} the file does not name`;
    if (!deps.canPrompt) throw usageError(`${what}: pass --yes to delete them (${NO_PROMPT}); nothing was changed`);
    // With --json the plan is not on stdout: the question is asked below it all the same.
    if (deps.json) deps.stderr.write(planText(plan, name, deps, options.secretDir, terminalColumns(deps.stderr)));
    if (!(await deps.prompter.confirm(`Apply it? ${what[0]!.toUpperCase()}${what.slice(1)}, and their deliveries stop at once.`, false))) {
      throw new CliError('nothing was changed', ExitCode.failure);
    }
  }
  const code = await carryOut(options, { plan, secretless, journal }, deps);
  return code === ExitCode.ok ? endOf(secretless, options.secretDir) : code;
}

/** Carries out a plan (planDeclared's), once nothing can stop the run before its first change; --json's document is printed. */
export async function carryOut(options: ApplyOptions, { plan, secretless, journal }: Omit<Planned, 'account'>, deps: CommandDeps): Promise<number> {
  // Made only now, once nothing can stop the run before its first change.
  if (plan.create.length > 0) ensureDirectory(options.secretDir!, '--secret-dir');
  journal?.settle();
  return execute(options, plan, deps, secretless, journal);
}

/**
 * The webhooks the file declares, once every entry is checked, event types against the catalog included: every
 * mistake of the file at once, in one usage error. A catalog that cannot be read leaves the mistakes found without it.
 */
async function declaredAndKnown(data: unknown, name: string, deps: CommandDeps): Promise<Declared[]> {
  const { webhooks, problems, subscribed } = checkDeclaration(data);
  let types: string[];
  try {
    types = (await catalog(deps)).map((entry) => entry.type);
  } catch (error) {
    if (problems.length > 0) throw problemsError(name, problems);
    throw error;
  }
  problems.push(...unknownEventTypes(subscribed, types));
  if (problems.length > 0) throw problemsError(name, problems);
  return webhooks;
}

/**
 * The webhooks an earlier apply created into the --secret-dir and left without their secret file (checkJournal), but
 * for those this run deletes.
 */
function leftWithoutSecret(journal: JournalCheck, plan: Plan): Named[] {
  const deleted = new Set(plan.delete.map(({ id }) => id));
  return journal.named.filter(({ id }) => !deleted.has(id));
}

/** A run that did what it was to do ends with exit 0, or names the webhooks left without a secret (exit 1). */
function endOf(secretless: Named[] | null, dir: string | undefined): number {
  if (!secretless || secretless.length === 0) return ExitCode.ok;
  const { line, hint } = secretlessWords(secretless, dir!);
  throw new CliError(line, ExitCode.failure, hint);
}

/** How --dry-run ends: exit 0, the webhooks left without a secret only said (a review is no failure, and changes nothing). */
function endOfDryRun(secretless: Named[] | null, dir: string | undefined, deps: CommandDeps): number {
  if (secretless && secretless.length > 0) {
    const { line, hint } = secretlessWords(secretless, dir!);
    deps.stderr.write(laidOut(deps.stderr, `${deps.errColors.yellow('!')} ${line}\n  ${hint}\n`));
  }
  return ExitCode.ok;
}

/** The webhooks an earlier apply created into `dir` and left without their secret, and the way out, in words. */
function secretlessWords(secretless: Named[], dir: string): { line: string; hint: string } {
  const ids = secretless.map(({ id }) => sanitize(id));
  const one = ids.length === 1;
  return {
    line: `${counted(ids.length, 'webhook')} an apply created into ${dir} ${one ? 'has' : 'have'} no signing secret there (its file missing or empty): ${ids.map(sanitize).join(', ')}; ${one ? 'its' : 'their'} deliveries cannot be verified`,
    hint:
      `a create whose answer was lost leaves no secret, and the service gives one only in that answer: if you kept ${one ? 'it' : 'them'} elsewhere, put ${one ? 'it' : 'each'} in ${join(dir, '<id>.secret')}; ` +
      `else delete ${one ? 'it' : 'each'} (\`whsvc webhooks delete ${shellWord(ids[0]!)} --yes\`) and ${AGAIN}, which makes it anew with its secret in ${dir}`,
  };
}

/** The changes, in order: creations first, deletions last (a run that stops part-way has removed nothing yet). */
function stepsOf(plan: Plan): Step[] {
  return [
    ...plan.create.map((w): Step => ({ action: 'create', url: w.url, events: w.events, active: w.active })),
    ...plan.update.map((w): Step => ({ action: 'update', id: w.id, url: w.url, changes: w.changes })),
    ...plan.delete.map((w): Step => ({ action: 'delete', id: w.id, url: w.url })),
  ];
}

/**
 * The changes made one after the other, each said as it is done. The first
 * that fails (or Ctrl-C) ends the run: what was done and what was not is
 * said, and the same apply run again finishes the job, since it plans afresh
 * from the account as it is then.
 */
async function execute(options: ApplyOptions, plan: Plan, deps: CommandDeps, secretless: Named[] | null, journal: Journal | undefined): Promise<number> {
  const stop = options.stop?.();
  const outcome = emptyOutcome();
  const steps = stepsOf(plan);
  let failure: unknown;
  for (const [index, step] of steps.entries()) {
    if (stop?.aborted) {
      outcome.interrupted = true;
      outcome.not_done = steps.slice(index).map(notDone);
      break;
    }
    try {
      await perform(step, journal, outcome, deps);
    } catch (error) {
      failure = error;
      outcome.error = (error as Error).message;
      outcome.not_done = steps.slice(index).map(notDone);
      break;
    }
  }
  journal?.close();
  const made = outcome.created.length + outcome.updated.length + outcome.deleted.length;
  if (deps.json) printJson(deps, applyDocument(options, plan, outcome, secretless));
  else if (outcome.not_done.length === 0) {
    deps.stdout.write(
      laidOut(
        deps.stdout,
        `Done: ${tally(outcome.created.length, outcome.updated.length, outcome.deleted.length)}, ${countText(plan.unchanged.length)} unchanged.\n`,
      ),
    );
  }
  if (outcome.not_done.length > 0) {
    const why = outcome.interrupted ? 'interrupted' : 'stopped';
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `${deps.errColors.yellow('!')} ${why} after ${countText(made)} of ${counted(steps.length, 'change')}; not done: ${outcome.not_done.map((step) => `${step.action} ${sanitize(step.id ?? step.url)}`).join(', ')}\n` +
          `  the same apply, run again, finishes the job: it plans afresh from the account as it is then\n`,
      ),
    );
  }
  if (failure !== undefined) throw failure;
  return outcome.interrupted ? ExitCode.interrupted : ExitCode.ok;
}

const emptyOutcome = (): Outcome => ({ created: [], updated: [], deleted: [], not_done: [], error: null, interrupted: false });

const notDone = (step: Step): Outcome['not_done'][number] =>
  step.action === 'create' ? { action: 'create', url: step.url } : { action: step.action, id: step.id, url: step.url };

/**
 * One change, said when done. A create is written to the journal before it is sent, and a webhook created has its
 * secret written to its file, then its intent cleared, before anything is said of it.
 */
async function perform(step: Step, journal: Journal | undefined, outcome: Outcome, deps: CommandDeps): Promise<void> {
  const c = deps.colors;
  if (step.action === 'create') {
    const { webhook, path } = await createIntoSecretDir(step, journal!, deps);
    outcome.created.push({ id: webhook.id, url: webhook.url, signing_secret_file: path });
    if (!deps.json)
      deps.stdout.write(
        laidOut(deps.stdout, `${c.green('✓')} created  ${sanitize(webhook.id)}  ${sanitize(webhook.url)}  (signing secret in ${path}, mode 0600)\n`),
      );
  } else if (step.action === 'update') {
    const changes = {
      ...(step.changes.events ? { events: step.changes.events.to } : {}),
      ...(step.changes.active ? { active: step.changes.active.to } : {}),
    };
    await updateWebhook(deps.api, step.id, changes);
    outcome.updated.push({ id: step.id, url: step.url });
    if (!deps.json) deps.stdout.write(laidOut(deps.stdout, `${c.green('✓')} updated  ${sanitize(step.id)}  ${sanitize(step.url)}\n`));
  } else {
    try {
      await deleteWebhook(deps.api, step.id);
    } catch (error) {
      // Gone already (deleted meanwhile): the account is as declared all the same.
      if (!(error instanceof ApiError && error.status === 404)) throw error;
    }
    const removed = journal === undefined ? undefined : removeSecretFileOf(journal.dir, step.id, deps);
    outcome.deleted.push({ id: step.id, url: step.url, removed_secret_file: removed ?? null });
    const also = removed === undefined ? '' : `  (its secret file ${removed} removed: the secret was revoked with it)`;
    if (!deps.json) deps.stdout.write(laidOut(deps.stdout, `${c.green('✓')} deleted  ${sanitize(step.id)}  ${sanitize(step.url)}${also}\n`));
  }
}

/**
 * The secret file under `dir` of a webhook just deleted, removed: its secret was revoked with the webhook, and a file
 * left would only mislead (terraform's destroy takes what it made along). One that cannot be removed is said on stderr
 * and left: the account is as declared all the same.
 */
function removeSecretFileOf(dir: string, id: string, deps: CommandDeps): string | undefined {
  try {
    return removeSecretFile(dir, id);
  } catch (error) {
    deps.stderr.write(
      laidOut(deps.stderr, `${deps.errColors.yellow('!')} webhook ${sanitize(id)} was deleted, its secret file left: ${(error as Error).message}\n`),
    );
    return undefined;
  }
}

/**
 * A webhook created with its signing secret in `<id>.secret` under the journal's directory (mode 0600, never printed):
 * its intent written to the journal before the request is sent, and cleared once the secret's file is whole; a secret
 * that cannot be written deletes the webhook again (undoCreate). For apply's creates and `whsvc mcp`'s webhooks_create.
 */
export async function createIntoSecretDir(
  step: CreateStep,
  journal: Journal,
  deps: CommandDeps,
  again = AGAIN,
): Promise<{ webhook: Webhook & { signing_secret: string }; path: string }> {
  journal.intend(step.url);
  const webhook = await create(step, deps, again);
  let path = join(journal.dir, `${webhook.id}.secret`);
  let reserved: ReservedFile | undefined;
  try {
    path = join(journal.dir, secretFileName(webhook.id));
    reserved = ReservedFile.reserve(path, '--secret-dir', false);
    reserved.write(secretFileText(webhook.signing_secret));
  } catch (error) {
    throw await undoCreate(deps.api, webhook.id, path, error, () => reserved?.discard(), `${again} with a --secret-dir that can be written`);
  }
  journal.clear(step.url);
  return { webhook, path };
}

/**
 * The create request. One that may have made the webhook without its answer reaching us (createFailure), or Ctrl-C
 * pressed twice while it is under way, says so: its secret never arrived, and the next apply into the same
 * --secret-dir names it (its journal).
 */
const create = (step: CreateStep, deps: CommandDeps, again: string) =>
  createForSecret(
    deps,
    { url: step.url, events: step.events, ...(step.active ? {} : { active: false }) },
    {
      interrupted: interruptedCreate(step.url, again),
      failure: (error) => createFailure(error, step.url, again),
      again: `${again}: it is made anew, with its secret`,
    },
  );

/** How apply makes anew a webhook left without its secret. */
const AGAIN = 'apply again';

const tally = (created: number, updated: number, deleted: number) =>
  `${countText(created)} created, ${countText(updated)} updated, ${countText(deleted)} deleted`;

/** Where a step of the plan goes on when too wide for the terminal: under its URL, after `  + create     `. */
const STEP_HANG = ' '.repeat(15);

/**
 * The plan for a person: a line per webhook (what happens to it, its URL, its id), and what changes; a webhook to
 * delete whose secret file is in `secretDir` says that the file goes too, or that it is left and why (secretFileWords).
 */
function planText(plan: Plan, name: string, deps: CommandDeps, secretDir: string | undefined, width: number | undefined): string {
  const c = deps.colors;
  const lines: string[] = [];
  const steps = new Set<string>();
  if (!changesAnything(plan)) {
    lines.push(`No changes: the account's webhooks are as ${name} declares them (${countText(plan.unchanged.length)} unchanged).`);
  } else {
    lines.push(
      `${name} at ${sanitize(deps.api.baseUrl)}: ${countText(plan.create.length)} to create, ${countText(plan.update.length)} to update, ${countText(plan.delete.length)} to delete, ${countText(plan.unchanged.length)} unchanged`,
    );
    const rows: Array<[string, string, string, string]> = [
      ...plan.create.map((w): [string, string, string, string] => [
        c.green('+ create   '),
        w.url,
        '(new)',
        `${w.events.join(', ')}${w.active ? '' : ' (paused)'}`,
      ]),
      ...plan.update.map((w): [string, string, string, string] => [c.yellow('~ update   '), sanitize(w.url), sanitize(w.id), changeWords(w.changes)]),
      ...plan.delete.map((w): [string, string, string, string] => [
        c.red('- delete   '),
        sanitize(w.url),
        sanitize(w.id),
        secretDir === undefined ? '' : secretFileWords(secretDir, w.id),
      ]),
      ...plan.unchanged.map((w): [string, string, string, string] => [c.dim('= unchanged'), sanitize(w.url), sanitize(w.id), '']),
    ];
    const urlWidth = Math.min(60, Math.max(...rows.map(([, url]) => url.length)));
    const idWidth = Math.max(...rows.map(([, , id]) => id.length));
    for (const [action, url, id, what] of rows) {
      const step = `  ${action}  ${url.padEnd(urlWidth)}  ${what ? `${id.padEnd(idWidth)}  ${what}` : id}`;
      steps.add(step);
      lines.push(step);
    }
  }
  if (plan.notInFile.length > 0) {
    const one = plan.notInFile.length === 1;
    lines.push(
      `  ${counted(plan.notInFile.length, 'webhook')} of the account ${one ? 'is' : 'are'} not in the file, left as ${one ? 'it is' : 'they are'} (--prune deletes ${one ? 'it' : 'them'})`,
    );
  }
  return `${lines.map((line) => wrapLine(line, width, steps.has(line) ? STEP_HANG : hangOf(line))).join('\n')}\n`;
}

/** What a delete does with the webhook's secret file under `dir`, in the plan: removed, or left and why (as removeSecretFileOf does). */
function secretFileWords(dir: string, id: string): string {
  const removal = secretFileRemoval(dir, id);
  if (!removal) return '';
  return removal.left === undefined ? `and its secret file ${removal.path}` : `its secret file ${removal.path} is left: it ${removal.left}`;
}

/** An update's changes in words: `events +product.updated -invoice.paid; active true → false`. */
export function changeWords(changes: Changes): string {
  const words: string[] = [];
  if (changes.events) {
    const added = changes.events.to.filter((e) => !changes.events!.from.includes(e)).map((e) => `+${sanitize(e)}`);
    const removed = changes.events.from.filter((e) => !changes.events!.to.includes(e)).map((e) => `-${sanitize(e)}`);
    words.push(`events ${[...added, ...removed].join(' ')}`);
  }
  if (changes.active) words.push(`active ${changes.active.from} → ${changes.active.to}`);
  return words.join('; ');
}

/** The --json document: the plan, what was done (null for --dry-run), and the webhooks without a secret file (null without --secret-dir). */
export function applyDocument(options: Pick<ApplyOptions, 'file' | 'dryRun' | 'prune'>, plan: Plan, outcome: Outcome | null, secretless: Named[] | null) {
  return {
    file: options.file,
    dry_run: options.dryRun,
    prune: options.prune,
    changed: outcome !== null && outcome.created.length + outcome.updated.length + outcome.deleted.length > 0,
    plan: {
      create: plan.create,
      update: plan.update.map(({ id, url, changes }) => ({ id, url, changes })),
      delete: plan.delete,
      unchanged: plan.unchanged,
      not_in_file: plan.notInFile,
    },
    outcome,
    without_secret_file: secretless,
  };
}
