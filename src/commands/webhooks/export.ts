import { Command, Option } from '@commander-js/extra-typings';
import { allWebhooks } from '../../api/log.js';
import { apiAction } from '../../cli/actions.js';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { printJson } from '../../cli/output.js';
import { oneOf } from '../../cli/parse.js';
import { STDIN } from '../../cli/stdin.js';
import { ReservedFile } from '../../files/user-file.js';
import { redactUserinfo } from '../../net.js';
import { counted, sanitize } from '../../render/text.js';
import { checkDeclaration, isYaml } from './apply/declaration.js';
import { urlKey } from './shared/url.js';
import { laidOut, laidOutYaml } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('export')
    .description("the account's webhooks as a file that webhooks apply takes back with nothing to change: YAML, or JSON with --json")
    .addOption(
      new Option('--active <bool>', 'only the active (true) or paused (false) webhooks: apply --prune would delete the others').argParser(
        oneOf(['true', 'false']),
      ),
    )
    .option('-o, --output <file>', 'write it to this file (YAML for .yaml and .yml, else JSON: as apply reads it) instead of stdout')
    .option('--force', 'let --output overwrite an existing file')
    .addHelpText(
      'after',
      examples(
        'whsvc webhooks export -o webhooks.yaml',
        'whsvc webhooks export | whsvc webhooks apply -f - --dry-run',
        'whsvc webhooks export --json > webhooks.json',
      ),
    )
    .action(
      apiAction((deps, o) =>
        runF(exportOptions({ active: o.active === undefined ? undefined : o.active === 'true', output: o.output, force: Boolean(o.force) }), deps),
      ),
    );

export interface ExportOptions {
  active?: boolean | undefined;
  /** The file to write; stdout when undefined. */
  output?: string | undefined;
  force: boolean;
}

/** The flags as given, checked: -o is a file's path (kubectl's `-o json` is --json here), `-` stdout. */
function exportOptions(options: ExportOptions): ExportOptions {
  const { output } = options;
  if (output === '') throw usageError('--output is empty: give the path of the file to write');
  if (output !== undefined && /^(json|ya?ml)$/i.test(output)) {
    throw usageError(
      `--output ${output} names the file to write, not a format`,
      `JSON on stdout is --json, YAML is the default; a file named ${output}: -o ./${output}`,
    );
  }
  return output === STDIN ? { ...options, output: undefined } : options;
}

/** One webhook as the file declares it: the fields apply reads, in its order. */
type Entry = { url: string; events: string[]; active: boolean };

/**
 * The account's webhooks (every page, in one bounded walk of the list) as the file apply reads: YAML, or JSON with
 * --json or a file name apply reads as JSON. Nothing is written until the whole list is read and checked, so that a
 * read that fails part-way never leaves a file naming part of the account (which apply --prune would take as "delete
 * the rest"); a file is written whole or not at all, by the writer of every file whsvc writes.
 */
export async function run(options: ExportOptions, deps: CommandDeps): Promise<number> {
  // Reserved before the read, so that a path that cannot be written is said before the account is read.
  const reserved = options.output === undefined ? undefined : ReservedFile.reserve(options.output, '--output', options.force);
  const unregister = deps.interrupts.onInterrupt(() => reserved?.discard());
  try {
    const { entries, ids } = await readAccount(deps, options.active);
    checkTakenBack(entries, ids);
    const document = { webhooks: entries };
    if (reserved === undefined) {
      if (deps.json) printJson(deps, document);
      else deps.stdout.write(laidOutYaml(deps.stdout, await yamlText(document, header(deps, options, entries.length))));
      return ExitCode.ok;
    }
    const yaml = isYaml(options.output!);
    reserved.write(yaml ? await yamlText(document, header(deps, options, entries.length)) : `${JSON.stringify(document, null, 2)}\n`);
    if (deps.json) printJson(deps, { file: options.output, format: yaml ? 'yaml' : 'json', count: entries.length });
    else deps.stderr.write(laidOut(deps.stderr, `${deps.errColors.green('✓')} ${counted(entries.length, 'webhook')} written to ${options.output}\n`));
    return ExitCode.ok;
  } finally {
    unregister();
    reserved?.discard();
  }
}

/** The account's webhooks, as entries of the file, and their ids (for what cannot be written). */
async function readAccount(deps: CommandDeps, active: boolean | undefined): Promise<{ entries: Entry[]; ids: string[] }> {
  const entries: Entry[] = [];
  const ids: string[] = [];
  for await (const webhook of allWebhooks(deps.api, { active })) {
    entries.push({ url: webhook.url, events: webhook.events, active: webhook.active });
    ids.push(webhook.id);
  }
  return { entries, ids };
}

/**
 * Refuses (exit 1, nothing written) an account that no file apply takes back can declare: two webhooks at one URL
 * (apply knows a webhook by its URL), or a webhook apply would refuse as declared (a URL it refuses, no event types),
 * each named by its id.
 */
function checkTakenBack(entries: Entry[], ids: string[]): void {
  const lines: string[] = [];
  const byUrl = new Map<string, number[]>();
  for (const [index, entry] of entries.entries()) byUrl.set(urlKey(entry.url), [...(byUrl.get(urlKey(entry.url)) ?? []), index]);
  for (const [url, at] of byUrl) {
    if (at.length > 1) lines.push(`webhooks ${at.map((index) => sanitize(ids[index]!)).join(' and ')} both deliver to ${sanitize(url)}`);
  }
  for (const [index, entry] of entries.entries()) {
    for (const problem of checkDeclaration({ webhooks: [entry] }).problems) {
      const field = problem.at.replace(/^webhooks\[0\]\.?/, '');
      lines.push(`webhook ${sanitize(ids[index]!)}${field === '' ? '' : `, ${field}`}: ${sanitize(problem.why)}`);
    }
  }
  if (lines.length === 0) return;
  const what = 'the account cannot be written as a file apply takes back';
  throw new CliError(
    lines.length === 1 ? `${what}: ${lines[0]}` : `${what} (${lines.length} reasons); nothing was written:\n${lines.map((line) => `  ${line}`).join('\n')}`,
    ExitCode.failure,
    'apply knows one webhook per URL: delete the one to drop (whsvc webhooks delete ID), or fix it (whsvc webhooks update ID), then export again',
  );
}

/** The comment a YAML file starts with: where it came from, and what a part of the account means to --prune. */
function header(deps: CommandDeps, options: ExportOptions, count: number): string {
  const lines = [
    `# ${counted(count, 'webhook')} of ${sanitize(redactUserinfo(deps.api.baseUrl))}, by whsvc webhooks export; whsvc webhooks apply -f FILE takes it back`,
  ];
  if (options.active !== undefined) lines.push(`# only the ${options.active ? 'active' : 'paused'} ones: apply --prune would delete the others`);
  return lines.map((line) => `${line}\n`).join('');
}

/** The document as YAML, as apply's own examples write it: events in brackets, no line folded. js-yaml loaded only here. */
async function yamlText(document: { webhooks: Entry[] }, comment: string): Promise<string> {
  const { dump } = await import('js-yaml');
  return `${comment}${dump(document, { lineWidth: -1, flowLevel: 3, noRefs: true })}`;
}
