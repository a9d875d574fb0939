import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/render/width.js';
import { createWebhook, sandboxEnv, trigger, type CliResult } from '../helpers/cli.js';
import { inProcessCliWith, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Issue 44, done when "no line whsvc prints at 80 columns is wrapped by the terminal mid-word": the README's flows
// (login against the sandbox, webhooks create/list/get/health/export, events, deliveries list/show/diagnose/retry/
// recover/tail, test, sign and verify, send, check-receiver, the sandbox's clock, and the errors and hints of bad
// input) run on a terminal 80 and 60 columns wide, and no line of stdout or stderr is wider than it (as a terminal
// draws it, colour aside): a line that fits is never wrapped by the terminal. How each line is laid out (words whole,
// ids shortened) is lines.test.ts's; this one is the sweep, so that a line nobody thought of is found.

const WIDTHS = [80, 60] as const;

let sandbox: SandboxInProcess;
let app: Receiver;
let workDir: string;
let secretFile: string;
let payloadFile: string;
let webhookId: string;
let deliveryId: string;
let failingDelivery: string;

/** The sandbox's read-write client, by its environment; `at(columns)` runs on a terminal that wide. */
const env = () => sandboxEnv(sandbox.info, join(workDir, 'config'));
const cli = inProcessCliWith(env);
const at = (columns: number) => inProcessCliWith(env, { terminal: { columns } });

beforeAll(async () => {
  // The app takes deliveries to /ok and fails the others: a retry is then due, which the manual clock's move sends.
  [sandbox, app] = await Promise.all([
    startSandboxInProcess(['--quiet', '--clock', 'manual']),
    startReceiver((request) => (request.path === '/ok' ? 200 : 500)),
  ]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-every-line-'));
  secretFile = join(workDir, 'whsec.txt');
  payloadFile = join(workDir, 'payload.json');
  writeFileSync(payloadFile, '{"id":"evt_1","type":"invoice.paid"}');
  webhookId = (await createWebhook(cli, `${app.url}/ok`, 'invoice.paid', ['--secret-file', secretFile])).id;
  // A webhook of a long host that no event reaches, and one whose deliveries fail.
  await createWebhook(cli, 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices', 'production_order.completed,sales_order.created');
  await createWebhook(cli, `${app.url}/api/v2/webhooks/erp/invoices`, 'invoice.paid');
  const made = await trigger(cli);
  await app.waitFor(2);
  const deliveries = await Promise.all(made.map(async (id) => JSON.parse((await cli(['deliveries', 'show', id, '--json'])).stdout)));
  deliveryId = deliveries.find((d) => d.webhook_id === webhookId).id;
  failingDelivery = deliveries.find((d) => d.webhook_id !== webhookId).id;
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), app?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

interface Flow {
  args: (columns: number) => string[];
  input?: string;
  env?: Record<string, string>;
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
  { args: () => ['webhooks', 'export'], code: 0 },
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
  { args: () => ['sign', '--secret-file', secretFile, '--payload-file', payloadFile], code: 0 },
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
];

/**
 * The lines of `text` wider than `columns`, as a terminal draws them: colour codes take no room, and a progress line
 * redrawn after a carriage return is a line of its own. A line that is one word (a signature `sign` prints for a copy),
 * wider than any line, is no finding: a word is never broken, and the terminal alone can show it whole.
 */
const tooWide = (text: string, columns: number) =>
  text
    .split(/[\r\n]/)
    .map((line) => stripVTControlCharacters(line))
    .filter((line) => displayWidth(line) > columns && /\s/.test(line.trim()));

describe('no line whsvc prints is wider than the terminal (issue 44)', () => {
  it.each(WIDTHS)('the README flows at %i columns', async (columns) => {
    const found: string[] = [];
    for (const flow of flows()) {
      const args = flow.args(columns);
      const result: CliResult = await at(columns)(args, { input: flow.input, env: flow.env });
      expect(result.code, `whsvc ${args.join(' ')}\n${result.stdout}${result.stderr}`).toBe(flow.code);
      for (const stream of ['stdout', 'stderr'] as const) {
        for (const line of tooWide(result[stream], columns)) found.push(`whsvc ${args.join(' ')} (${stream}, ${displayWidth(line)}):\n${line}`);
      }
    }
    expect(found.join('\n\n'), found.join('\n\n')).toBe('');
  });

  it.each(WIDTHS)("listen's lines at %i columns: a delivery signed with another secret, then one verified and forwarded to the app", async (columns) => {
    const secret = join(workDir, `listen-${columns}.txt`);
    // --count counts verified deliveries: the one signed otherwise comes first, and the verified one ends the run, exit 1
    // for the bad signature it saw.
    const args = ['--secret-file', secret, '--forward-to', `${app.url}/ok`, '--count', '1'];
    const listen = await startListenInProcess(args, { env: env(), terminal: { columns } });
    const id = (await createWebhook(cli, `${listen.url}/hooks`, 'sales_order.created', ['--secret-file', secret])).id;
    expect((await cli(['send', `${listen.url}/hooks`, '--secret-file', payloadFile, '--event', 'sales_order.created'])).code).toBe(1);
    await trigger(cli, 'sales_order.created');
    expect(await listen.exit, listen.stderr()).toBe(1);
    expect((await cli(['webhooks', 'delete', id, '--yes'])).code).toBe(0);
    expect(listen.stdout()).toMatch(/mismatch[\s\S]*verified/);
    const found = [...tooWide(listen.stdout(), columns), ...tooWide(listen.stderr(), columns)];
    expect(found, `${listen.stdout()}${listen.stderr()}`).toEqual([]);
  });
});
