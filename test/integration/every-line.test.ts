import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandPaths } from '../../src/cli/habits.js';
import { buildProgram } from '../../src/program.js';
import { displayWidth } from '../../src/render/width.js';
import { createWebhook, sandboxEnv, trigger, type CliResult, type Env } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';
import { copiedToken } from '../helpers/words.js';

// Issue 44, done when "no line whsvc prints at 80 columns is wrapped by the terminal mid-word": the README's flows
// (login against the sandbox, webhooks create/list/get/health/export/apply/rotate-secret, events, deliveries list/show/
// diagnose/retry/recover/tail and tail --forward-to, test, sign and verify, send and send --rate, replay, check-receiver,
// the sandbox's banner and clock, listen, auth's and completion's errors, and the errors and hints of bad input, other
// tools' habits among them) and every command's --help run on a terminal 80, 60 and 132 columns wide, and no line of
// stdout or stderr is wider than it (as a terminal draws it, colour aside): a line that fits is never wrapped by the
// terminal. How each line is laid out (copied words whole, signatures shortened) is lines.test.ts's; this one is the sweep, so that a
// line nobody thought of is found. The completion scripts fit 80 columns too: test/unit/commands/completion.

const WIDTHS = [80, 60, 132] as const;

let sandbox: SandboxInProcess;
let app: Receiver;
let workDir: string;
let secretFile: string;
let payloadFile: string;
let webhookId: string;
let deliveryId: string;
let failingDelivery: string;
/** The webhook each width's run rotates the secret of. */
const rotated = new Map<number, string>();
/** A second sandbox, for `webhooks apply --prune`: it deletes every webhook the file does not declare. */
let declared: SandboxInProcess;

/** The sandbox's read-write client, by its environment; `at(columns)` runs on a terminal that wide. */
const env = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(env);
const at = (columns: number) => inProcessCliWith(env, { terminal: { columns } });
const declaredEnv = () => sandboxEnv(declared.info, join(workDir, 'declared-config'));

beforeAll(async () => {
  // The app takes deliveries to /ok and fails the others: a retry is then due, which the manual clock's move sends.
  // One that answers 401 (a signature it does not take) gets replay's hint.
  [sandbox, app, declared] = await Promise.all([
    startSandboxInProcess(['--quiet', '--clock', 'manual']),
    startReceiver((request) => (request.path.startsWith('/ok') ? 200 : request.path === '/401' ? 401 : 500)),
    startSandboxInProcess(['--quiet']),
  ]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-every-line-'));
  secretFile = join(workDir, 'whsec.txt');
  payloadFile = join(workDir, 'payload.json');
  writeFileSync(payloadFile, '{"id":"evt_1","type":"invoice.paid"}');
  writeFileSync(join(workDir, 'declared.yaml'), DECLARED);
  writeFileSync(join(workDir, 'declared-less.yaml'), DECLARED_LESS);
  writeFileSync(join(workDir, 'mistaken.yaml'), MISTAKEN);
  webhookId = (await createWebhook(cli, `${app.url}/ok`, 'invoice.paid', ['--secret-file', secretFile])).id;
  // A webhook of a long host that no event reaches, and one whose deliveries fail.
  await createWebhook(cli, 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices', 'production_order.completed,sales_order.created');
  await createWebhook(cli, `${app.url}/api/v2/webhooks/erp/invoices`, 'invoice.paid');
  for (const columns of WIDTHS)
    rotated.set(columns, (await createWebhook(cli, `${app.url}/ok/rotated-${columns}/api/v2/webhooks/erp/invoices`, 'inventory.changed')).id);
  const made = await trigger(cli);
  await app.waitFor(2);
  const deliveries = await Promise.all(made.map(async (id) => JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout)));
  deliveryId = deliveries.find((d) => d.webhook_id === webhookId).id;
  failingDelivery = deliveries.find((d) => d.webhook_id !== webhookId).id;
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), declared?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

/** A file for `webhooks apply`: a long host, many events, one paused. */
const DECLARED = `webhooks:
  - url: https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices
    events: [invoice.paid, production_order.completed, sales_order.created, inventory.changed]
  - url: https://ops.example.com/hooks   # paused until launch
    events: [inventory.changed]
    active: false
`;
/** The same account with one webhook less and one changed: --prune deletes the other. */
const DECLARED_LESS = `webhooks:
  - url: https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices
    events: [invoice.paid, sales_order.created]
`;
/** A file with a mistake of every kind: apply lists them all. */
const MISTAKEN = `webhooks:
  - url: https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices
    events: [invoice.payed, production_order.complete]
  - url: http://ops.example.com/hooks
    events: [inventory.changed]
    active: no
  - url: https://sales.example.com/hooks
    evnets: [sales_order.created]
`;

interface Flow {
  args: (columns: number) => string[];
  /** Its stdout is data, printed whole to copy (a signature, a file's YAML): no layout shortens it. */
  data?: true;
  input?: string;
  env?: Env | (() => Env);
  code: number;
}

/** The README's flows, each as a user types it; `columns` keeps what each width's run changes its own. */
const flows = (): Flow[] => [
  {
    args: (c) => ['login', '--profile', `at-${c}`, '--client-id', sandbox.info.client_id, '--client-secret-stdin'],
    input: sandbox.info.client_secret,
    code: 0,
  },
  { args: () => ['auth', 'status'], code: 0 },
  { args: () => ['auth', 'list'], code: 0 },
  { args: () => ['events'], code: 0 },
  { args: (c) => ['webhooks', 'create', '--url', `${app.url}/ok/${c}`, '--events', 'invoice.paid', '--secret-file', join(workDir, `whsec-${c}.txt`)], code: 0 },
  // A second webhook at a URL another delivers to: its warning.
  { args: () => ['webhooks', 'create', '--url', `${app.url}/ok`, '--events', 'invoice.paid', '--dry-run'], code: 0 },
  { args: () => ['webhooks', 'list'], code: 0 },
  { args: () => ['webhooks', 'get', webhookId], code: 0 },
  { args: () => ['webhooks', 'health'], code: 1 },
  { args: () => ['webhooks', 'export'], code: 0, data: true },
  { args: () => ['sandbox', 'trigger', 'invoice.paid'], code: 0 },
  { args: () => ['deliveries', 'list', webhookId], code: 0 },
  { args: () => ['deliveries', 'list'], code: 0 },
  { args: () => ['deliveries', 'show', deliveryId], code: 0 },
  { args: () => ['deliveries', 'show', failingDelivery], code: 0 },
  { args: () => ['deliveries', 'diagnose', deliveryId, '--secret-file', secretFile], code: 0 },
  { args: () => ['deliveries', 'diagnose', failingDelivery], code: 0 },
  { args: () => ['deliveries', 'retry', failingDelivery], code: 1 },
  { args: () => ['deliveries', 'recover', '--since', '1h', '--dry-run'], code: 0 },
  { args: () => ['deliveries', 'recover', '--since', '1h', '--yes'], code: 1 },
  { args: () => ['deliveries', 'tail', '--since', '1h', '--count', '3'], code: 0 },
  { args: () => ['test', webhookId], code: 0 },
  { args: () => ['sign', '--secret-file', secretFile, '--payload-file', payloadFile], code: 0, data: true },
  { args: () => ['verify', '--secret-file', secretFile, '--payload-file', payloadFile, '--signature', `sha256=${'0'.repeat(64)}`], code: 1 },
  { args: () => ['send', `${app.url}/ok`, '--secret-file', secretFile, '--event', 'invoice.paid'], code: 0 },
  { args: () => ['check-receiver', `${app.url}/ok`, '--secret-file', secretFile], code: 1 },
  { args: () => ['sandbox', 'clock'], code: 0 },
  { args: () => ['sandbox', 'clock', 'advance', '1h'], code: 0 },
  // Bad input: each an error and its hint.
  { args: () => ['webhooks', 'get', 'wh_000000000000000000000000'], code: 5 },
  { args: () => ['deliveries', 'show', 'dlv_000000000000000000000000'], code: 5 },
  { args: () => ['webhooks', 'create', '--url', 'ftp://hooks.example.com/in', '--events', 'invoice.paid'], code: 2 },
  { args: () => ['webhooks', 'create', '--url', `${app.url}/x`, '--events', 'invoice.payed'], code: 2 },
  { args: () => ['webhooks', 'list', '--format', 'json'], code: 2 },
  { args: () => ['webhooks', 'rm', webhookId], code: 2 },
  { args: () => ['deliveries', 'tail', '--secret-file', secretFile], code: 2 },
  { args: () => ['webhooks', 'list'], env: { WHSVC_CLIENT_SECRET: 'sbx_secret_wrong' }, code: 3 },
  // A webhook created with its secret shown once (no --secret-file): the secret's line is never broken.
  { args: (c) => ['webhooks', 'create', '--url', `${app.url}/ok/shown-${c}`, '--events', 'invoice.paid'], code: 0 },
  // An event no webhook takes: the trigger's note.
  { args: () => ['sandbox', 'trigger', 'production_order.completed'], code: 0 },
  // A secret rotated (each width a webhook of its own): its plan, then its steps.
  { args: (c) => ['webhooks', 'rotate-secret', rotated.get(c)!, '--secret-file', join(workDir, `rotated-${c}.secret`), '--dry-run'], code: 0 },
  { args: (c) => ['webhooks', 'rotate-secret', rotated.get(c)!, '--secret-file', join(workDir, `rotated-${c}.secret`), '--yes'], code: 0 },
  // Deliveries tailed to the app: forwarded, then answered 500, then no answer at all.
  { args: () => ['deliveries', 'tail', '--since', '1h', '--count', '2', '--forward-to', `${app.url}/ok/tail`], code: 0 },
  { args: () => ['deliveries', 'tail', '--since', '1h', '--count', '2', '--forward-to', `${app.url}/api/v2/webhooks/erp/invoices`], code: 0 },
  { args: () => ['deliveries', 'tail', '--since', '1h', '--count', '2', '--forward-to', 'http://127.0.0.1:1/hooks'], code: 0 },
  // A delivery recorded by send, then replayed: to the app, to one that fails, to one that refuses its signature.
  { args: (c) => ['send', `${app.url}/ok`, '--secret-file', secretFile, '--event', 'invoice.paid', '--record', recordFile(c)], code: 0 },
  { args: (c) => ['replay', recordFile(c), '--to', `${app.url}/ok/replayed`, '--secret-file', secretFile], code: 0 },
  { args: (c) => ['replay', recordFile(c), '--to', `${app.url}/api/v2/webhooks/erp/invoices`, '--secret-file', secretFile], code: 1 },
  { args: (c) => ['replay', recordFile(c), '--to', `${app.url}/401`], code: 1 },
  { args: (c) => ['replay', recordFile(c), '--to', `${app.url}/ok`, '--dry-run'], code: 0 },
  // A declared file applied to the second sandbox: the plan, the run, --prune's plan and run, and every mistake.
  { args: (c) => ['webhooks', 'apply', '-f', join(workDir, 'declared.yaml'), '--yes', '--secret-dir', secretDir(c)], env: declaredEnv, code: 0 },
  {
    args: (c) => ['webhooks', 'apply', '-f', join(workDir, 'declared-less.yaml'), '--prune', '--dry-run', '--secret-dir', secretDir(c)],
    env: declaredEnv,
    code: 0,
  },
  {
    args: (c) => ['webhooks', 'apply', '-f', join(workDir, 'declared-less.yaml'), '--prune', '--yes', '--secret-dir', secretDir(c)],
    env: declaredEnv,
    code: 0,
  },
  { args: () => ['webhooks', 'apply', '-f', join(workDir, 'mistaken.yaml'), '--prune', '--yes'], env: declaredEnv, code: 2 },
  // auth's errors: a secret refused, a profile that is not there, a login with no secret to read.
  { args: () => ['login', '--profile', 'refused', '--client-id', sandbox.info.client_id, '--client-secret-stdin'], input: 'sbx_secret_wrong', code: 3 },
  { args: () => ['login', '--profile', 'asked', '--client-id', sandbox.info.client_id], code: 2 },
  {
    args: () => ['auth', 'status', '--profile', 'production-eu-west-accounting'],
    env: { WHSVC_CLIENT_ID: undefined, WHSVC_CLIENT_SECRET: undefined },
    code: 3,
  },
  { args: () => ['logout', '--profile', 'production-eu-west-accounting'], code: 0 },
  { args: () => ['completion'], code: 2 },
  { args: () => ['completion', 'tcsh'], code: 2 },
  // Habits of other tools, each answered with the command that does it.
  ...[
    ['webhooks', 'list', '-o', 'json'],
    ['webhooks', 'list', '--output=json'],
    ['webhooks', 'list', '-q', '.data[].id'],
    ['webhooks', 'list', '--json', 'id,url'],
    ['webhooks', 'view', webhookId],
    ['deliveries', 'resend', deliveryId],
    ['endpoints', 'list'],
    ['endpoint', 'create', '--url', 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices'],
    ['events', 'trigger', 'production_order.completed'],
    ['listen', '3000'],
    ['listen', '--print-secret'],
    ['webhooks', 'create', '--url', 'https://example.com/hooks', '--events', 'invoice.paid', 'sales_order.created', 'production_order.completed'],
    ['whoami'],
    ['logs'],
    ['trigger', 'production_order.completed'],
    ['help', 'webhooks', 'rotate'],
    ['webhoks', 'list'],
    // A group with no command: its help, on stderr, as a usage error.
    ['webhooks'],
    [],
  ].map((args) => ({ args: () => args, code: 2 })),
];

const recordFile = (columns: number) => join(workDir, `recorded-${columns}.ndjson`);
const secretDir = (columns: number) => join(workDir, `secrets-${columns}`);

/**
 * The lines of `text` wider than `columns`, as a terminal draws them: colour codes take no room, and a progress line
 * redrawn after a carriage return is a line of its own. Every line fits at every width but these, kept whole because
 * a user copies them: what a command prints as data (its flow's `data`: `sign`'s signature, the YAML of `webhooks
 * export`), a JSON document (--json's error on stderr), and a line that is one copied token alone wider than the whole
 * line (copiedToken: a URL, a file's path, an id, a secret, a command's piece with its ` \`), which whsvc puts on a
 * line of its own and the terminal wraps. A signature or a body only shown is shortened to fit.
 */
const tooWide = (text: string, columns: number) =>
  text
    .split(/[\r\n]/)
    .map((line) => stripVTControlCharacters(line))
    .filter((line) => displayWidth(line) > columns && !isJson(line) && !copiedToken(line));

function isJson(line: string): boolean {
  try {
    return typeof JSON.parse(line) === 'object';
  } catch {
    return false;
  }
}

describe('no line whsvc prints is wider than the terminal (issue 44)', () => {
  it.each(WIDTHS)('the README flows at %i columns', async (columns) => {
    const found: string[] = [];
    for (const flow of flows()) {
      const args = flow.args(columns);
      const result: CliResult = await at(columns)(args, { input: flow.input, env: typeof flow.env === 'function' ? flow.env() : flow.env });
      // Each flow's own exit code, all told at once with the lines found: one run shows every flow gone wrong.
      if (result.code !== flow.code) found.push(`whsvc ${args.join(' ')}: exit ${result.code}, not ${flow.code}:\n${result.stdout}${result.stderr}`);
      for (const stream of flow.data ? (['stderr'] as const) : (['stdout', 'stderr'] as const)) {
        for (const line of tooWide(result[stream], columns)) found.push(`whsvc ${args.join(' ')} (${stream}, ${displayWidth(line)}):\n${line}`);
      }
    }
    expect(found.join('\n\n'), found.join('\n\n')).toBe('');
  });

  it.each(WIDTHS)(
    "listen's lines at %i columns, with two secrets: a delivery signed with another secret, then one verified and forwarded to the app",
    async (columns) => {
      const secret = join(workDir, `listen-${columns}.txt`);
      // --count counts verified deliveries: the one signed otherwise comes first, and the verified one ends the run, exit 1
      // for the bad signature it saw.
      // Two secrets, as during a rotation: the old one's file there, the new one's written when the webhook is made.
      const args = ['--secret-file', secretFile, '--secret-file', secret, '--forward-to', `${app.url}/ok`, '--count', '1'];
      const listen = await startListenInProcess(args, { env: env(), terminal: { columns } });
      const id = (await createWebhook(cli, `${listen.url}/hooks`, 'sales_order.created', ['--secret-file', secret])).id;
      expect((await cli(['send', `${listen.url}/hooks`, '--secret-file', payloadFile, '--event', 'sales_order.created'])).code).toBe(1);
      await trigger(cli, 'sales_order.created');
      expect(await listen.exit, listen.stderr()).toBe(1);
      expect((await cli(['webhooks', 'delete', id, '--yes'])).code).toBe(0);
      expect(listen.stdout()).toMatch(/mismatch[\s\S]*verified/);
      const found = [...tooWide(listen.stdout(), columns), ...tooWide(listen.stderr(), columns)];
      expect(found, `${listen.stdout()}${listen.stderr()}`).toEqual([]);
    },
  );
});

/** The words of a help, those of its layout aside: an example's ` \` and a wrapped comment's `#`. */
const helpWords = (text: string) =>
  text
    .split(/\s+/)
    .filter((word) => word !== '' && word !== '\\' && word !== '#')
    .sort();

describe("every command's --help at the terminal's width (issue 44)", () => {
  it.each(WIDTHS)('at %i columns: no line wider, and every word of it whole', async (columns) => {
    const found: string[] = [];
    // The program, its help command (commandPaths leaves it out), and every command of the tree.
    for (const path of [[], ['help'], ...commandPaths(buildProgram())]) {
      const args = [...path, '--help'];
      const [help, unbroken] = await Promise.all([runInProcess(args, { terminal: { columns } }), runInProcess(args, { terminal: { columns: 1000 } })]);
      expect(help.code, `whsvc ${args.join(' ')}\n${help.stderr}`).toBe(0);
      for (const line of tooWide(help.stdout, columns)) found.push(`whsvc ${args.join(' ')} (${displayWidth(line)}):\n${line}`);
      // Laid out by the width, the same words as on a terminal too wide to break any: the usage line, an option's term,
      // a description, each broken between its words and never inside one.
      if (helpWords(help.stdout).join(' ') !== helpWords(unbroken.stdout).join(' ')) found.push(`whsvc ${args.join(' ')}: a word broken:\n${help.stdout}`);
    }
    expect(found.join('\n\n'), found.join('\n\n')).toBe('');
  });
});

describe('what runs until it is stopped, at each width (issue 44)', () => {
  it.each(WIDTHS)("the sandbox's banner at %i columns: its commands, credentials and notes", async (columns) => {
    const started = startInProcess(['sandbox', 'start', '--port', '0'], { terminal: { columns } });
    const banner = await started.until(() => /Ctrl-C stops it\n/.test(started.stderr()) && started.stderr(), 'the banner');
    expect(await started.stop('SIGTERM')).toBe(0);
    expect(banner).toMatch(/sbx_secret_[\s\S]*whsvc login[\s\S]*whsvc sandbox trigger/);
    expect(tooWide(`${banner}${started.stdout()}`, columns), banner).toEqual([]);
  });

  it("send --rate's progress and report at each width, the widths at once (a load lasts a second at the least)", async () => {
    const runs = WIDTHS.map(async (columns) => {
      const args = ['send', `${app.url}/ok/load-${columns}`, '--secret-file', secretFile, '--rate', '20', '--duration', '1s'];
      const result = await at(columns)(args);
      expect(result.code, result.stderr).toBe(0);
      return [...tooWide(result.stdout, columns), ...tooWide(result.stderr, columns)].map((line) => `at ${columns}: ${line}`);
    });
    expect((await Promise.all(runs)).flat()).toEqual([]);
  });
});
