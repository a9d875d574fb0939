import { Argument, Command, Option } from '@commander-js/extra-typings';
import { apiAction } from '../../cli/actions.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, NO_PROMPT, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { printJson } from '../../cli/output.js';
import { duration, resourceId } from '../../cli/parse.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { checkUserFile } from '../../files/user-file.js';
import { sanitize } from '../../render/text.js';
import { terminalColumns } from '../../render/wrap.js';
import { cancel } from './rotate/cancel.js';
import { RotationJournal } from './rotate/journal.js';
import { isThere, type RotateOptions, type Rotating, secretFileTaken } from './rotate/rotating.js';
import { carryOut } from './rotate/steps.js';
import { alreadyFinished, finishedMeanwhile, rotationOf, survey } from './rotate/survey.js';
import { machineClock } from './rotate/tries.js';
import { newReport, planText } from './rotate/words.js';
import { takingTurns } from './shared/account-lock.js';

export type { Point, RotateOptions } from './rotate/rotating.js';

/** The longest --wait: a day, beyond which a person has gone home and the command should end. */
const LONGEST_WAIT_MS = 86_400_000;

export const command = (runF = run) =>
  new Command('rotate-secret')
    .description('move a webhook to a new signing secret without a missed event: a paused twin, proof, the switch, the old one deleted')
    .addArgument(new Argument('<id>', 'the webhook whose secret is replaced').argParser(resourceId('webhook')))
    .requiredOption('--secret-file <path>', 'where the new signing secret goes (mode 0600); the same path finishes a stopped run')
    .option('--dry-run', 'print the plan and change nothing')
    .option('-y, --yes', 'go ahead without asking (needed without a terminal)')
    .addOption(
      new Option('--wait <duration>', "keep trying the proof, and the old webhook's last deliveries, for up to this long: 90s, 10m").argParser(
        duration(LONGEST_WAIT_MS, 1),
      ),
    )
    .option('--cancel', "before the switch: delete the paused twin and the new secret's file")
    .option('--abandon-due', 'delete the old webhook even if deliveries signed with the old secret do not get through (they are dropped, and listed)')
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret --dry-run',
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret',
        'whsvc webhooks rotate-secret wh_… --secret-file ./new.secret --yes --wait 10m --json   # in scripts',
      ),
    )
    .action(
      apiAction((deps, id, o) =>
        runF(
          rotateOptions(
            {
              id,
              secretFile: o.secretFile,
              dryRun: Boolean(o.dryRun),
              yes: Boolean(o.yes),
              waitMs: o.wait ?? 0,
              cancel: Boolean(o.cancel),
              abandonDue: Boolean(o.abandonDue),
            },
            deps.canPrompt,
          ),
          deps,
        ),
      ),
    );

/** The flags as given, checked: a file to write, and, without a terminal to ask on, --yes (but for --dry-run). */
function rotateOptions(options: RotateOptions, canPrompt: boolean): RotateOptions {
  checkSecretFilePath(options.secretFile, 'the file to write the new secret to');
  if (options.secretFile === '-') throw usageError('--secret-file - would print the secret: give the path of a file to write it to');
  // A regular file may be the secret of a rotation under way (its journal says); anything else is never written.
  checkUserFile(options.secretFile, '--secret-file');
  if (options.waitMs > 0 && (options.dryRun || options.cancel))
    throw usageError(`--wait goes with a rotation that runs, not with ${options.dryRun ? '--dry-run' : '--cancel'}`);
  if (options.abandonDue && options.cancel) throw usageError('--abandon-due goes with a rotation that runs, not with --cancel');
  if (!options.dryRun && !options.yes && !canPrompt) {
    throw usageError(`rotating a secret needs confirmation: pass --yes, or see the plan with --dry-run (${NO_PROMPT})`);
  }
  return options;
}

export async function run(options: RotateOptions, deps: CommandDeps): Promise<number> {
  if (options.dryRun) return rotateNow(options, deps);
  return takingTurns(deps, () => rotateNow(options, deps));
}

async function rotateNow(options: RotateOptions, deps: CommandDeps): Promise<number> {
  // A dry run only reads: it holds nothing, and sees the journal as a run holding it has written it, whole lines.
  const journal = RotationJournal.open(options.secretFile, { hold: !options.dryRun });
  try {
    const rotation = rotationOf(journal.rotation, options, deps);
    // A finished rotation of another webhook is no rotation of this one: its journal is replaced when this one starts.
    if (!rotation) journal.rotation = undefined;
    const report = newReport({ id: options.id, url: rotation?.url ?? '', events: rotation?.events ?? [] }, options.secretFile, options.dryRun);
    const ctx: Rotating = { deps, options, journal, report, clock: options.clock ?? machineClock(deps.now), at: async (point) => options.at?.(point) };
    if (options.cancel) return await cancel(ctx, rotation);
    if (rotation?.done) return alreadyFinished(ctx, rotation);
    if (!rotation?.twin && isThere(options.secretFile)) throw secretFileTaken(options.secretFile);
    const facts = await survey(ctx, rotation);
    if (!facts) return finishedMeanwhile(ctx);
    const planTo = deps.json ? deps.stderr : deps.stdout;
    if (!deps.json || (!options.yes && !options.dryRun)) planTo.write(planText(facts, report, deps, terminalColumns(planTo)));
    if (options.dryRun) {
      if (deps.json) printJson(deps, report);
      else deps.stderr.write('Dry run: nothing was changed.\n');
      return ExitCode.ok;
    }
    if (!options.yes && !(await deps.prompter.confirm(`Rotate the secret of ${sanitize(options.id)} now?`, false))) {
      throw new CliError('nothing was changed', ExitCode.failure);
    }
    return await carryOut(ctx, facts);
  } finally {
    journal.release();
  }
}
