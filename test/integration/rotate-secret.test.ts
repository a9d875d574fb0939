import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Prompter } from '../../src/cli/prompter.js';
import { CliError } from '../../src/cli/errors.js';
import { command, type Point, type RotateOptions, run } from '../../src/commands/webhooks/rotate-secret.js';
import { journalPath } from '../../src/commands/webhooks/rotate/journal.js';
import { type CliResult, sandboxEnv } from '../helpers/cli.js';
import { signatureOf } from '../helpers/delivery.js';
import { postEvent } from '../helpers/http.js';
import { type InProcessOptions, runInProcess, type SandboxInProcess, startSandboxInProcess } from '../helpers/in-process.js';
import { type Received, type Receiver, startReceiver } from '../helpers/receiver.js';
import { instantWaitClock } from '../helpers/manual-clock.js';
import { GATHERED_TIMEOUT, step } from '../helpers/steps.js';
import { runVerbInProcess } from '../helpers/verb.js';

// webhooks rotate-secret against the sandbox (its clock manual: no automatic retry fires unless told) and a real
// receiver on loopback, all in this process. Each scenario has an endpoint of its own on the receiver (a path), which
// verifies with the old secret and, once it is given it, the new one read from the --secret-file as it is then.
// Events come while the rotation runs: at each point where a run can stop (the run's `at` hook) and, in the first
// scenario, from a stream that sends the next event as soon as the receiver has seen the last one.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;
/** Every run's stdout and stderr: no secret may be in any. */
const outputs: string[] = [];

/** What an endpoint of the receiver took: the event (its payload's id), under which delivery id, verified by which secret. */
interface Taken {
  id: string;
  deliveryId: string;
  by: 'old' | 'new';
}

/** One endpoint of the receiver and the webhook rotated there. */
interface Endpoint {
  path: string;
  url: string;
  oldSecret: string;
  oldId: string;
  newFile: string;
  /** Whether it has been given the new secret (read from newFile when a delivery comes). */
  takesNew: boolean;
  /** Whether it still takes the old secret (false: it dropped it). */
  takesOld: boolean;
  /** Whether it answers 404 "unknown invoice" to the service's sample events (test sends), whatever they are signed with. */
  refusesSamples: boolean;
  /** Payload ids whose next deliveries are answered 503 (a retry falls due), and how many more times. */
  refusals: Map<string, number>;
  taken: Taken[];
  /** Every event sent to it, and whether it came after the twin was resumed. */
  sent: Array<{ id: string; afterSwitch: boolean }>;
  /** Set once the twin is resumed: events from then on must reach the twin. */
  switched: boolean;
}

const endpoints = new Map<string, Endpoint>();

const header = (request: Received, name: string) => String(request.headers[name] ?? '');

/** The receiver's answer: verified by the old secret or (when given it) the new one, else 401; a refuse-once event 503. */
function answer(request: Received) {
  const endpoint = endpoints.get(request.path);
  if (!endpoint) return 404;
  const signature = header(request, 'x-service-signature');
  const newSecret = endpoint.takesNew && existsSync(endpoint.newFile) ? readFileSync(endpoint.newFile, 'utf8').trim() : undefined;
  const by =
    endpoint.takesOld && signature === signatureOf(endpoint.oldSecret, request.bytes)
      ? 'old'
      : newSecret && signature === signatureOf(newSecret, request.bytes)
        ? 'new'
        : undefined;
  if (!by) return { status: 401, body: 'signature mismatch' };
  const payload = JSON.parse(request.body) as { id: string };
  if (endpoint.refusesSamples && !endpoint.sent.some((sent) => sent.id === payload.id)) return { status: 404, body: 'unknown invoice' };
  const refusals = endpoint.refusals.get(payload.id) ?? 0;
  if (refusals > 0) {
    endpoint.refusals.set(payload.id, refusals - 1);
    return 503;
  }
  endpoint.taken.push({ id: payload.id, deliveryId: header(request, 'x-service-delivery-id'), by });
  return 200;
}

let eventCount = 0;

/**
 * An event to the endpoint's webhooks (invoice.paid, its payload's id known), once the receiver has been sent it.
 * `invoice`: the id of an invoice an earlier event had, with an `amount` of its own (another event of one resource).
 */
async function event(endpoint: Endpoint, options: { refusals?: number; invoice?: string; amount?: number } = {}): Promise<string> {
  eventCount += 1;
  const id = options.invoice ?? `inv_${endpoint.path.slice(1)}_${eventCount}`;
  const amount = options.amount === undefined ? {} : { amount: { amount: options.amount, currency: 'EUR' } };
  if (options.refusals) endpoint.refusals.set(id, options.refusals);
  endpoint.sent.push({ id, afterSwitch: endpoint.switched });
  await postEvent(sandbox.info.base_url, 'invoice.paid', { id, ...amount });
  const body = JSON.stringify({ id, event: 'invoice.paid', ...amount }).slice(0, -1);
  await receiver.waitFor(1, 20_000, (request) => request.path === endpoint.path && request.body.startsWith(body));
  return id;
}

async function cli(args: string[], options: InProcessOptions = {}): Promise<CliResult> {
  const result = await runInProcess(args, { ...options, env: { ...env, ...options.env } });
  outputs.push(result.stdout, result.stderr);
  return result;
}

/** A webhook at a path of its own on the receiver, with its secret in a file: the endpoint to rotate. */
async function endpointAt(path: string): Promise<Endpoint> {
  const oldFile = join(workDir, `${path.slice(1)}-old.secret`);
  const created = await cli([
    'webhooks',
    'create',
    '--url',
    `${receiver.url}${path}`,
    '--events',
    'invoice.paid,sales_order.created',
    '--secret-file',
    oldFile,
    '--json',
  ]);
  expect(created.code, created.stderr).toBe(0);
  const endpoint: Endpoint = {
    path,
    url: `${receiver.url}${path}`,
    oldSecret: readFileSync(oldFile, 'utf8').trim(),
    oldId: JSON.parse(created.stdout).id,
    newFile: join(workDir, `${path.slice(1)}-new.secret`),
    takesNew: true,
    takesOld: true,
    refusesSamples: false,
    refusals: new Map(),
    taken: [],
    sent: [],
    switched: false,
  };
  endpoints.set(path, endpoint);
  return endpoint;
}

/** What a test gives the run beside the flags: a hook at each point, a clock, a prompter. */
interface Injected extends Pick<RotateOptions, 'at' | 'clock'> {
  prompter?: Prompter;
}

/** `whsvc webhooks rotate-secret OLD --secret-file NEW ARGS` in-process, with what the test injects into its run. */
async function rotate(endpoint: Endpoint, args: string[], injected: Injected = {}, options: InProcessOptions = {}): Promise<CliResult> {
  const { prompter, ...hooks } = injected;
  const made = () => command((given, deps) => run({ ...given, ...hooks }, prompter ? { ...deps, prompter } : deps));
  const result = await runVerbInProcess(['webhooks', 'rotate-secret'], made, [endpoint.oldId, '--secret-file', endpoint.newFile, ...args], {
    ...options,
    env: { ...env, ...options.env },
  });
  outputs.push(result.stdout, result.stderr);
  return result;
}

/** The hook of a run under a stream of events: an event at each point, and the switch noted when the twin is resumed. */
const eventsAtEachPoint =
  (endpoint: Endpoint, stopAt?: Point) =>
  async (point: Point): Promise<void> => {
    if (point === 'resumed') endpoint.switched = true;
    await event(endpoint);
    if (point === stopAt) throw new CliError(`stopped at ${point} (the test)`);
  };

/** The payload ids of the service's sample events (test sends) the endpoint was sent, each once: not the test's events. */
const samplesTo = (endpoint: Endpoint): string[] => [
  ...new Set(
    receiver.received
      .filter((request) => request.path === endpoint.path)
      .map((request) => (JSON.parse(request.body) as { id: string }).id)
      .filter((id) => !endpoint.sent.some((sent) => sent.id === id)),
  ),
];

interface Listed {
  id: string;
  url: string;
  active: boolean;
}

/** The account's webhooks at the endpoint's URL. */
async function webhooksAt(endpoint: Endpoint): Promise<Listed[]> {
  const listed = await cli(['webhooks', 'list', '--all', '--json']);
  return (JSON.parse(listed.stdout).data as Listed[]).filter((webhook) => webhook.url === endpoint.url);
}

/** The requests a --debug run sent that change something, as `METHOD path`. */
const changes = (stderr: string) =>
  [...stderr.matchAll(/^> (\w+) (\S+)$/gm)]
    .map((m) => `${m[1]} ${new URL(m[2]!).pathname}`)
    .filter((line) => !line.startsWith('GET ') && !line.endsWith('/oauth/token'));

/**
 * The end every rotation must reach: the old webhook gone, the twin alone at the URL and active, its secret in the
 * file (0600) and the one its deliveries verify with; every event sent was taken, and each sent once the twin was
 * resumed was taken from the twin.
 */
async function expectRotated(endpoint: Endpoint, newId: string): Promise<void> {
  expect((await cli(['webhooks', 'get', endpoint.oldId])).code).toBe(5);
  expect(await webhooksAt(endpoint)).toEqual([expect.objectContaining({ id: newId, active: true })]);
  expect(statSync(endpoint.newFile).mode & 0o777).toBe(0o600);
  expect(readFileSync(endpoint.newFile, 'utf8')).toMatch(/^whsec_\S+$/);
  await event(endpoint);
  const takenBy = (id: string) => endpoint.taken.filter((taken) => taken.id === id).map((taken) => taken.by);
  for (const sent of endpoint.sent) {
    expect(takenBy(sent.id), `event ${sent.id}`).not.toEqual([]);
    if (sent.afterSwitch) expect(takenBy(sent.id), `event ${sent.id}, sent after the switch`).toContain('new');
  }
  expect(endpoint.taken.at(-1)?.by).toBe('new');
}

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet', '--clock', 'manual']);
  receiver = await startReceiver(answer);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-rotate-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await receiver?.close();
  await sandbox?.stop();
  // No run printed a secret: not the old ones, not the new ones, in no output, --json and --debug included.
  for (const endpoint of endpoints.values()) {
    const secrets = [endpoint.oldSecret, ...(existsSync(endpoint.newFile) ? [readFileSync(endpoint.newFile, 'utf8').trim()] : [])];
    for (const secret of secrets) for (const output of outputs) expect(output).not.toContain(secret);
  }
  rmSync(workDir, { recursive: true, force: true });
});

describe('webhooks rotate-secret', () => {
  it(
    'under a steady stream of events, to a receiver that takes both secrets: every event delivered, the doubles listed, the old webhook gone',
    async () => {
      const endpoint = await endpointAt('/steady');
      await event(endpoint);
      // A delivery the receiver refuses once: its retry falls due on the old webhook, signed with the old secret.
      const refused = await event(endpoint, { refusals: 1 });
      let streaming = true;
      const stream = (async () => {
        while (streaming) await event(endpoint);
      })();
      const result = await rotate(endpoint, ['--yes', '--json', '--debug'], { at: eventsAtEachPoint(endpoint) });
      streaming = false;
      await stream;
      expect(result.code, result.stderr).toBe(0);
      const document = JSON.parse(result.stdout);
      expect(document).toMatchObject({
        old_id: endpoint.oldId,
        signing_secret_file: endpoint.newFile,
        steps: { twin: 'done', proof: 'done', switch: 'done', delete: 'done' },
        proof: { status: 'delivered' },
        finished: true,
        error: null,
      });
      expect(result.stdout).not.toMatch(/"signing_secret"/);
      await step('the old delivery still due was sent before the old webhook went', () => {
        expect(document.old_deliveries_resent).toEqual([expect.objectContaining({ event: 'invoice.paid', outcome: 'delivered' })]);
        const resent = endpoint.taken.filter((taken) => taken.id === refused);
        expect(resent).toEqual([expect.objectContaining({ by: 'old', deliveryId: document.old_deliveries_resent[0].delivery_id })]);
      });
      await step('the doubles: each event sent to both, under the delivery ids the receiver was sent', () => {
        const takenByBoth = endpoint.sent
          .map(({ id }) => id)
          .filter((id) => ['old', 'new'].every((by) => endpoint.taken.some((taken) => taken.id === id && taken.by === by)));
        expect(document.doubles.map((double: { payload_id: string }) => double.payload_id)).toEqual(takenByBoth);
        // The event of the moment between the twin's resume and the old one's pause, at least.
        expect(takenByBoth).toContain(endpoint.sent.find((sent) => sent.afterSwitch)!.id);
        for (const double of document.doubles) {
          const deliveries = endpoint.taken.filter((taken) => taken.id === double.payload_id);
          expect(deliveries).toEqual(
            expect.arrayContaining([
              { id: double.payload_id, deliveryId: double.old_delivery_id, by: 'old' },
              { id: double.payload_id, deliveryId: double.new_delivery_id, by: 'new' },
            ]),
          );
        }
      });
      await step('progress on stderr, step by step', () => {
        expect(result.stderr).toMatch(/✓ 1\/4 paused twin wh_\w+ created; its signing secret is in .*-new\.secret \(mode 0600\)/);
        expect(result.stderr).toContain(
          `✓ 2/4 the receiver answered 200 to a test delivery signed with the new secret (${document.proof.delivery_id}, to the paused twin ${document.new_id})\n`,
        );
        expect(result.stderr).toMatch(/✓ 4\/4 wh_\w+ deleted: the old secret is revoked/);
      });
      await expectRotated(endpoint, document.new_id);
      // The journal stays, so that a run again can say it finished: 0600, and no secret in it.
      const journal = journalPath(endpoint.newFile);
      expect(statSync(journal).mode & 0o777).toBe(0o600);
      expect(readFileSync(journal, 'utf8')).not.toContain(readFileSync(endpoint.newFile, 'utf8'));
      expect(readFileSync(journal, 'utf8')).not.toContain(endpoint.oldSecret);

      const again = await rotate(endpoint, ['--yes', '--debug']);
      expect(again.code, again.stderr).toBe(0);
      expect(again.stdout).toBe(
        `${endpoint.oldId} was rotated already: it is now ${document.new_id}, whose secret is in ${endpoint.newFile}. Nothing to do.\n`,
      );
      expect(changes(again.stderr)).toEqual([]);
    },
    GATHERED_TIMEOUT,
  );

  it('two events of one invoice during the switch, one to both webhooks and one to the twin alone: only the one sent to both is listed', async () => {
    const endpoint = await endpointAt('/one-invoice');
    const invoice = `inv_one_${eventCount}`;
    const at = async (point: Point) => {
      if (point === 'resumed') {
        endpoint.switched = true;
        await event(endpoint, { invoice, amount: 100 });
      }
      if (point === 'paused') await event(endpoint, { invoice, amount: 200 });
    };
    const result = await rotate(endpoint, ['--yes', '--json'], { at });
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    const deliveryOf = (amount: number, by: 'old' | 'new') =>
      receiver.received.find(
        (request) =>
          request.path === endpoint.path &&
          JSON.parse(request.body).amount.amount === amount &&
          endpoint.taken.some((taken) => taken.deliveryId === header(request, 'x-service-delivery-id') && taken.by === by),
      );
    expect(deliveryOf(200, 'old')).toBeUndefined();
    expect(document.doubles).toEqual([
      {
        event: 'invoice.paid',
        payload_id: invoice,
        old_delivery_id: header(deliveryOf(100, 'old')!, 'x-service-delivery-id'),
        new_delivery_id: header(deliveryOf(100, 'new')!, 'x-service-delivery-id'),
      },
    ]);
    await expectRotated(endpoint, document.new_id);
  });

  it('--dry-run shows the plan and only reads; the human run prints the plan, the doubles and the end on stdout', async () => {
    const endpoint = await endpointAt('/plan');
    const dry = await rotate(endpoint, ['--dry-run', '--debug']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(changes(dry.stderr)).toEqual([]);
    expect(dry.stdout).toContain(`Rotate the signing secret of ${endpoint.oldId} (${endpoint.url}; invoice.paid, sales_order.created)`);
    expect(dry.stdout).toMatch(/ {4}1\. a twin at the same URL and events, paused; its signing secret to .*plan-new\.secret \(mode 0600, never shown\)/);
    expect(dry.stdout).toContain(`The webhook's id changes: ${endpoint.oldId} is replaced by the twin's; webhooks apply files, keyed by URL, keep working.`);
    expect(dry.stderr).toContain('Dry run: nothing was changed.');
    expect(existsSync(endpoint.newFile)).toBe(false);
    const json = JSON.parse((await rotate(endpoint, ['--dry-run', '--json'])).stdout);
    expect(json).toMatchObject({ dry_run: true, new_id: null, steps: { twin: 'to_do', proof: 'to_do', switch: 'to_do', delete: 'to_do' } });

    // Refused once: a retry falls due on the old webhook, which the run sends again.
    await event(endpoint, { refusals: 1 });
    const result = await rotate(endpoint, ['--yes'], { at: eventsAtEachPoint(endpoint) });
    expect(result.code, result.stderr).toBe(0);
    const newId = (await webhooksAt(endpoint))[0]!.id;
    expect(result.stdout).toContain(`1 delivery of ${endpoint.oldId} still due, signed with the old secret, sent again before it was deleted: 1 delivered.\n`);
    expect(result.stdout).toMatch(
      new RegExp(
        '^1 event went to both webhooks during the switch, the same payload under two delivery ids: a receiver that drops repeats by delivery id acts on each twice; check the effects of these:\\n' +
          `  invoice\\.paid  inv_\\S+  ${endpoint.oldId} dlv_\\w+  ${newId} dlv_\\w+\\n`,
        'm',
      ),
    );
    expect(result.stdout).toContain(`Done: ${endpoint.oldId} is now ${newId} (${endpoint.url}), whose signing secret is in ${endpoint.newFile}.`);
    await expectRotated(endpoint, newId);

    // The secret taken into the receiver's own place, the same path serves the next rotation: of the webhook made now.
    endpoint.oldSecret = readFileSync(endpoint.newFile, 'utf8').trim();
    rmSync(endpoint.newFile);
    endpoint.oldId = newId;
    const next = await rotate(endpoint, ['--yes', '--json']);
    expect(next.code, next.stderr).toBe(0);
    expect(JSON.parse(next.stdout)).toMatchObject({ old_id: newId, taken_up: false, finished: true });
    await expectRotated(endpoint, JSON.parse(next.stdout).new_id);
  });

  it('against a receiver that knows only the old secret: nothing switches, the paused twin stays, it says why (exit 1); once it has the new one, the same command finishes', async () => {
    const endpoint = await endpointAt('/only-old');
    endpoint.takesNew = false;
    const refused = await rotate(endpoint, ['--yes'], { at: eventsAtEachPoint(endpoint) });
    expect(refused.code).toBe(1);
    const [twin] = (await webhooksAt(endpoint)).filter((webhook) => webhook.id !== endpoint.oldId);
    expect(refused.stderr).toMatch(
      new RegExp(
        `whsvc: the receiver at ${endpoint.url} does not take the new secret yet: a test delivery signed with it \\(dlv_\\w+, to the paused twin ${twin!.id}\\): answered 401; ` +
          `one signed with the old \\(dlv_\\w+, to ${endpoint.oldId}\\): answered 200; nothing was switched, and ${endpoint.oldId} delivers as before\n`,
      ),
    );
    expect(refused.stderr).toContain(
      `hint: give the receiver the secret in ${endpoint.newFile}, keeping the old one (it verifies with either until the rotation is done), then run whsvc webhooks rotate-secret ${endpoint.oldId} --secret-file ${endpoint.newFile} again; --wait 10m keeps trying, --cancel deletes the twin and the file\n`,
    );
    expect(await webhooksAt(endpoint)).toEqual([
      expect.objectContaining({ id: twin!.id, active: false }),
      expect.objectContaining({ id: endpoint.oldId, active: true }),
    ]);
    expect(statSync(endpoint.newFile).mode & 0o777).toBe(0o600);
    // The old webhook delivers as before.
    await event(endpoint);
    expect(endpoint.taken.at(-1)?.by).toBe('old');

    const stillRefused = await rotate(endpoint, ['--yes', '--json']);
    expect(stillRefused.code).toBe(1);
    expect(JSON.parse(stillRefused.stdout)).toMatchObject({
      new_id: twin!.id,
      taken_up: true,
      steps: { twin: 'done', proof: 'failed', switch: 'to_do' },
      proof: { webhook_id: twin!.id, answer: 'answered 401', verdict: 'not_taken', old: { webhook_id: endpoint.oldId, answer: 'answered 200' } },
    });

    endpoint.takesNew = true;
    const finished = await rotate(endpoint, ['--yes', '--json'], { at: eventsAtEachPoint(endpoint) });
    expect(finished.code, finished.stderr).toBe(0);
    const document = JSON.parse(finished.stdout);
    expect(document).toMatchObject({ new_id: twin!.id, taken_up: true, finished: true });
    // The same proof delivery, tried again each time: one sample delivery in the twin's log.
    const proofs = JSON.parse((await cli(['deliveries', 'list', twin!.id, '--all', '--json'])).stdout).data.filter(
      (attempt: { delivery_id: string }) => attempt.delivery_id === document.proof.delivery_id,
    );
    expect(proofs.map((attempt: { status: string }) => attempt.status)).toEqual(['delivered', 'failed', 'failed']);
    // And one sample sent to the old webhook to compare, delivered once: two samples in all.
    expect(samplesTo(endpoint)).toHaveLength(2);
    await expectRotated(endpoint, twin!.id);
  });

  it('a receiver that holds both secrets but refuses the sample event (404 "unknown invoice"): it answers the new secret as the old, and the rotation goes on', async () => {
    const endpoint = await endpointAt('/refuses-samples');
    endpoint.refusesSamples = true;
    const result = await rotate(endpoint, ['--yes', '--json'], { at: eventsAtEachPoint(endpoint) });
    expect(result.code, result.stderr).toBe(0);
    const document = JSON.parse(result.stdout);
    expect(document.proof).toMatchObject({
      answer: 'answered 404',
      verdict: 'same_as_old',
      old: { webhook_id: endpoint.oldId, status: 'failed', answer: 'answered 404' },
    });
    expect(result.stderr).toContain(
      `✓ 2/4 the receiver answered 404 to a test delivery signed with the new secret (${document.proof.delivery_id}, to the paused twin ${document.new_id}), ` +
        `as to one signed with the old (${document.proof.old.delivery_id}, to ${endpoint.oldId}): it refuses the service's sample event, not the new secret\n`,
    );
    // The sample refused on the old webhook is no event still due: it does not keep the old webhook.
    expect(document.old_deliveries_resent).toEqual([]);
    await expectRotated(endpoint, document.new_id);
  });

  it('--wait keeps trying the proof on its clock until the receiver takes the new secret', async () => {
    const endpoint = await endpointAt('/wait');
    endpoint.takesNew = false;
    // The receiver is given the new secret while the second pause lasts.
    const { clock, sleeps } = instantWaitClock((count) => {
      if (count === 2) endpoint.takesNew = true;
    });
    const result = await rotate(endpoint, ['--yes', '--wait', '1m'], { clock });
    expect(result.code, result.stderr).toBe(0);
    expect(sleeps).toEqual([2_000, 4_000]);
    expect(result.stderr.match(/no proof yet/g)).toHaveLength(1);
    expect(result.stderr).toContain(
      "whsvc: no proof yet that the receiver takes the new secret (the new secret's test delivery: answered 401; the old secret's: answered 200): trying again for up to 1 min\n",
    );
    await expectRotated(endpoint, (await webhooksAt(endpoint))[0]!.id);

    const never = await endpointAt('/wait-over');
    never.takesNew = false;
    const waited = instantWaitClock();
    const over = await rotate(never, ['--yes', '--wait', '20s'], { clock: waited.clock });
    expect(over.code).toBe(1);
    expect(waited.sleeps).toEqual([2_000, 4_000, 8_000, 6_000]);
    expect(over.stderr).toContain('does not take the new secret yet: a test delivery signed with it');
  });

  it('--cancel, before the switch, deletes the twin and the new secret; the old webhook is as it was', async () => {
    const endpoint = await endpointAt('/cancel');
    endpoint.takesNew = false;
    expect((await rotate(endpoint, ['--yes'])).code).toBe(1);
    const twin = (await webhooksAt(endpoint)).find((webhook) => webhook.id !== endpoint.oldId)!;
    const cancelled = await rotate(endpoint, ['--cancel', '--yes']);
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toBe(
      `Cancel the rotation of ${endpoint.oldId}: delete the paused twin ${twin.id} and ${endpoint.newFile}; ${endpoint.oldId} stays as it is.\n` +
        `Cancelled: twin ${twin.id} deleted, ${endpoint.newFile} removed.\n`,
    );
    expect(await webhooksAt(endpoint)).toEqual([expect.objectContaining({ id: endpoint.oldId, active: true })]);
    expect(existsSync(endpoint.newFile)).toBe(false);
    expect(existsSync(journalPath(endpoint.newFile))).toBe(false);
    await event(endpoint);
    expect(endpoint.taken.at(-1)?.by).toBe('old');
    const again = await rotate(endpoint, ['--cancel', '--yes']);
    expect(again).toMatchObject({
      code: 0,
      stdout: '',
      stderr: `whsvc: no rotation of ${endpoint.oldId} is under way with ${endpoint.newFile}: nothing to cancel\n`,
    });
  });

  it('an old delivery still due that does not get through keeps the old webhook (paused, exit 1); once it does, the same command finishes', async () => {
    const endpoint = await endpointAt('/left');
    // Refused at its first send and again when it is sent before the delete.
    const refused = await event(endpoint, { refusals: 2 });
    const stopped = await rotate(endpoint, ['--yes', '--json'], { at: eventsAtEachPoint(endpoint) });
    expect(stopped.code).toBe(1);
    const document = JSON.parse(stopped.stdout);
    expect(document).toMatchObject({ steps: { switch: 'done', delete: 'failed' }, finished: false });
    expect(document.old_deliveries_resent).toEqual([expect.objectContaining({ outcome: 'failed', reason: 'answered 503' })]);
    const { delivery_id: left } = document.old_deliveries_resent[0];
    expect(stopped.stderr).toContain(
      `whsvc: a delivery signed with the old secret did not get through: ${left} (answered 503); ${endpoint.oldId} is kept, paused, so that it is not lost\n` +
        `hint: once the receiver takes the old secret again, whsvc webhooks rotate-secret ${endpoint.oldId} --secret-file ${endpoint.newFile} finishes (--wait 10m keeps trying); ` +
        `if it no longer can (it dropped the old secret), whsvc webhooks rotate-secret ${endpoint.oldId} --secret-file ${endpoint.newFile} --abandon-due --yes deletes ${endpoint.oldId} and drops it\n`,
    );
    expect(await webhooksAt(endpoint)).toEqual([
      expect.objectContaining({ id: document.new_id, active: true }),
      expect.objectContaining({ id: endpoint.oldId, active: false }),
    ]);
    const finished = await rotate(endpoint, ['--yes', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(JSON.parse(finished.stdout).old_deliveries_resent).toEqual([{ delivery_id: left, event: 'invoice.paid', outcome: 'delivered' }]);
    expect(endpoint.taken.filter((taken) => taken.id === refused)).toEqual([{ id: refused, deliveryId: left, by: 'old' }]);
    await expectRotated(endpoint, document.new_id);
  });

  it('an old delivery still due, and a receiver that has dropped the old secret: --abandon-due --yes deletes the old webhook with it, said and listed', async () => {
    const endpoint = await endpointAt('/dropped-old');
    const refused = await event(endpoint, { refusals: 1 });
    const at = async (point: Point) => {
      // The receiver's owner drops the old secret as soon as the twin takes events.
      if (point === 'paused') endpoint.takesOld = false;
    };
    const stopped = await rotate(endpoint, ['--yes', '--json'], { at });
    expect(stopped.code).toBe(1);
    const { delivery_id: left } = JSON.parse(stopped.stdout).old_deliveries_resent[0];
    const way = `whsvc webhooks rotate-secret ${endpoint.oldId} --secret-file ${endpoint.newFile} --abandon-due --yes`;
    expect(stopped.stderr).toContain(`${way} deletes ${endpoint.oldId} and drops it\n`);
    // The command pasted: the id and --secret-file are the test's own rotate(), the rest is given.
    const dropped = await rotate(endpoint, way.split(' ').slice(6));
    expect(dropped.code, dropped.stderr).toBe(0);
    expect(dropped.stderr).toContain(
      `whsvc: --abandon-due: 1 delivery signed with the old secret did not get through, and goes with ${endpoint.oldId}: ${left} (answered 401)\n`,
    );
    expect(dropped.stdout).toContain(
      `1 delivery of ${endpoint.oldId} still due, signed with the old secret, sent again before it was deleted: 1 not delivered (answered 401).\n`,
    );
    expect(dropped.stdout).toContain(
      'The receiver can drop the old secret: it is revoked, and the 1 delivery signed with it that did not get through was dropped (--abandon-due).\n',
    );
    // What was dropped was never taken: the rest of the rotation holds.
    endpoint.sent = endpoint.sent.filter((sent) => sent.id !== refused);
    await expectRotated(endpoint, (await webhooksAt(endpoint))[0]!.id);
  });

  it('a paused webhook is not rotated: it has no deliveries to move', async () => {
    const endpoint = await endpointAt('/paused');
    expect((await cli(['webhooks', 'update', endpoint.oldId, '--inactive'])).code).toBe(0);
    const result = await rotate(endpoint, ['--yes']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `whsvc: webhook ${endpoint.oldId} is paused: rotate-secret moves a live webhook's deliveries, and a paused one has none\n` +
        `hint: resume it first (whsvc webhooks update ${endpoint.oldId} --active), or create a new webhook (--inactive) and delete this one\n`,
    );
    expect(await webhooksAt(endpoint)).toHaveLength(1);
    expect(existsSync(endpoint.newFile)).toBe(false);
  });

  it('on a terminal it asks once, after the plan; no changes nothing', async () => {
    const endpoint = await endpointAt('/asked');
    const asked: Array<{ message: string; planShown: boolean }> = [];
    let answer = false;
    let shownSoFar = () => '';
    const prompter = {
      confirm: async (message: string) => {
        asked.push({ message, planShown: shownSoFar().includes('4. ') });
        return answer;
      },
    } as unknown as Prompter;
    const made = () =>
      command((given, deps) => {
        shownSoFar = () => (deps.stdout as unknown as { text: string }).text;
        return run(given, { ...deps, prompter });
      });
    const onTerminal = (args: string[]) =>
      runVerbInProcess(['webhooks', 'rotate-secret'], made, [endpoint.oldId, '--secret-file', endpoint.newFile, ...args], {
        // A person at a terminal: not CI.
        env: { ...env, CI: undefined },
        terminal: { columns: 100 },
      });
    const declined = await onTerminal([]);
    expect(declined.code, declined.stderr).toBe(1);
    expect(declined.stderr).toContain('whsvc: nothing was changed\n');
    expect(asked).toEqual([{ message: `Rotate the secret of ${endpoint.oldId} now?`, planShown: true }]);
    expect(await webhooksAt(endpoint)).toHaveLength(1);
    expect(existsSync(endpoint.newFile)).toBe(false);
    answer = true;
    const accepted = await onTerminal([]);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(asked).toHaveLength(2);
    await expectRotated(endpoint, (await webhooksAt(endpoint))[0]!.id);
  });
});

describe('webhooks rotate-secret stopped part-way, then run again', () => {
  it('a lost create, and another paused webhook at the URL made since with the same events: both named with their delete commands; the one kept is left alone', async () => {
    const endpoint = await endpointAt('/lost-two');
    const stopped = await rotate(endpoint, ['--yes'], { at: eventsAtEachPoint(endpoint, 'twin-made') });
    expect(stopped.code).toBe(1);
    const [lost] = (await webhooksAt(endpoint)).filter((webhook) => webhook.id !== endpoint.oldId);
    const made = await cli([
      'webhooks',
      'create',
      '--url',
      endpoint.url,
      '--events',
      'invoice.paid,sales_order.created',
      '--inactive',
      '--secret-file',
      join(workDir, 'lost-two-other.secret'),
      '--json',
    ]);
    const other = JSON.parse(made.stdout).id as string;
    // A paused webhook at the URL with other events is not what that create made.
    expect((await cli(['webhooks', 'create', '--url', endpoint.url, '--events', 'invoice.paid', '--inactive', '--json'])).code).toBe(0);
    const named = await rotate(endpoint, ['--yes']);
    expect(named.code).toBe(1);
    expect(named.stderr).toBe(
      `whsvc: the create of the twin an earlier run sent got no answer, and 2 webhooks could be what it made, without its secret: ${other}, ${lost!.id} (each paused, at ${endpoint.url} with the same events, made since)\n` +
        `hint: delete the one that run made: whsvc webhooks delete ${other} --yes, or whsvc webhooks delete ${lost!.id} --yes; then whsvc webhooks rotate-secret ${endpoint.oldId} --secret-file ${endpoint.newFile} (the others are left as they are)\n`,
    );
    expect(await webhooksAt(endpoint)).toHaveLength(4);
    expect((await cli(['webhooks', 'delete', lost!.id, '--yes'])).code).toBe(0);
    const finished = await rotate(endpoint, ['--yes', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    const document = JSON.parse(finished.stdout);
    expect(document.new_id).not.toBe(other);
    expect((await webhooksAt(endpoint)).map((webhook) => webhook.id)).toContain(other);
    for (const webhook of await webhooksAt(endpoint)) if (webhook.id !== document.new_id) await cli(['webhooks', 'delete', webhook.id, '--yes']);
    await expectRotated(endpoint, document.new_id);
  });

  const points: Point[] = [
    'create-noted',
    'twin-made',
    'twin-noted',
    'created',
    'proven',
    'switch-noted',
    'resumed',
    'paused',
    'resent',
    'delete-noted',
    'deleted',
  ];

  it.each(points)('stopped at %s, the same command finishes it', async (point) => {
    const endpoint = await endpointAt(`/stop-${point}`);
    await event(endpoint, { refusals: 1 });
    const stopped = await rotate(endpoint, ['--yes'], { at: eventsAtEachPoint(endpoint, point) });
    expect(stopped.code).toBe(1);
    expect(stopped.stderr).toContain(`whsvc: stopped at ${point} (the test)`);
    // Events go on while it is stopped.
    await event(endpoint);
    const lost = point === 'twin-made' ? (await webhooksAt(endpoint)).find((webhook) => webhook.id !== endpoint.oldId) : undefined;
    const again = await rotate(endpoint, ['--yes', '--json'], { at: eventsAtEachPoint(endpoint) });
    if (lost) {
      // The create's answer was never journaled: the webhook it made is known by evidence, and made anew with a secret.
      expect(again.stderr).toContain(
        `whsvc: the create of the twin an earlier run sent got no answer, and made ${lost.id} (paused, at ${endpoint.url} with the same events, made since): its secret never reached this machine; deleted, and the twin made anew\n`,
      );
    }
    expect(again.code, again.stderr).toBe(0);
    const document = JSON.parse(again.stdout);
    expect(document).toMatchObject({ finished: true, taken_up: true, steps: { twin: 'done', proof: 'done', switch: 'done', delete: 'done' } });
    await expectRotated(endpoint, document.new_id);
    // One sample event, however many runs tried the proof: a run stopped after it was delivered counts it as proven.
    expect(samplesTo(endpoint)).toHaveLength(1);
    expect((await rotate(endpoint, ['--yes'])).stdout).toContain('was rotated already');
  });
});
