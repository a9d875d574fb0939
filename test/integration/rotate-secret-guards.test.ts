import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../../src/cli/errors.js';
import { command, type Point, run } from '../../src/commands/webhooks/rotate-secret.js';
import { journalPath } from '../../src/commands/webhooks/rotate/journal.js';
import { type CliResult, sandboxEnv } from '../helpers/cli.js';
import { canMakeDeviceNodes } from '../helpers/bad-files.js';
import { postEvent } from '../helpers/http.js';
import { runInProcess, type SandboxInProcess, startSandboxInProcess } from '../helpers/in-process.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';
import { startRewritingFront } from '../helpers/rewriting-front.js';
import { runVerbInProcess } from '../helpers/verb.js';

// rotate-secret against what is not its own: a --secret-file that is not a regular file, a journal it did not write
// (edited, planted, another user's), two runs at once on one file, and services unlike the sandbox (a create answered
// with another URL; a log without next_attempt_at or delivery_id, as the interface describes it). The sandbox runs
// in-process, each attempt tried once (no automatic retry); a service unlike it is a front of the test's own.

let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;
let env: Record<string, string>;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet', '--max-attempts', '1']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-rotate-guards-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), receiver?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

const cli = (args: string[], more: Record<string, string> = {}): Promise<CliResult> => runInProcess(args, { env: { ...env, ...more } });

/** A webhook at `path` on the receiver (its secret in a file of its own); its id. */
async function created(path: string, events = 'invoice.paid', more: string[] = []): Promise<string> {
  const file = join(workDir, `${path.slice(1)}-${Math.random().toString(36).slice(2, 8)}.secret`);
  const result = await cli(['webhooks', 'create', '--url', `${receiver.url}${path}`, '--events', events, '--secret-file', file, '--json', ...more]);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).id as string;
}

/** The requests a --debug run sent, as `METHOD path` (the token's left out). */
const requests = (stderr: string) =>
  [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname}`).filter((line) => !line.endsWith('/oauth/token'));

describe('--secret-file that is not a regular file', () => {
  const kinds: Array<[string, (path: string) => void, string]> = [
    ['a FIFO', (path) => execFileSync('mkfifo', [path]), 'a FIFO'],
    ['a directory', (path) => mkdirSync(path), 'a directory'],
  ];
  if (canMakeDeviceNodes()) kinds.push(['a device', (path) => execFileSync('mknod', [path, 'c', '1', '3']), 'a device']);

  it.each(kinds)('(%s) is refused before any request, as the files rule says (exit 2)', async (_kind, make, what) => {
    const oldId = await created('/not-regular');
    const file = join(workDir, `not-regular-${what.replace(' ', '-')}`);
    make(file);
    for (const more of [[], ['--dry-run'], ['--cancel']]) {
      const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', file, '--yes', '--debug', ...more]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`whsvc: --secret-file ${file} is ${what}, not a regular file\n`);
      expect(requests(result.stderr)).toEqual([]);
    }
  });

  it('in a directory that does not exist: refused before any request (exit 2)', async () => {
    const oldId = await created('/no-dir');
    const file = join(workDir, 'no-such-dir', 'new.secret');
    const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', file, '--yes', '--debug']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`whsvc: cannot lock the rotate-secret journal ${journalPath(file)}: its directory does not exist\n`);
    expect(requests(result.stderr)).toEqual([]);
  });

  it('a regular file there, and no rotation under way: "already exists", before any request (exit 2)', async () => {
    const oldId = await created('/taken');
    const file = join(workDir, 'taken.secret');
    writeFileSync(file, 'mine\n');
    const result = await cli(['webhooks', 'rotate-secret', oldId, '--secret-file', file, '--yes', '--debug']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain(`whsvc: --secret-file ${file} already exists\n`);
    expect(requests(result.stderr)).toEqual([]);
    expect(readFileSync(file, 'utf8')).toBe('mine\n');
  });
});

/** `whsvc webhooks rotate-secret ARGS` in-process, `at` called at each point where the run could stop. */
async function rotate(args: string[], at?: (point: Point) => Promise<void>, more: Record<string, string> = {}): Promise<CliResult> {
  const made = () => command((given, deps) => run({ ...given, at }, deps));
  return runVerbInProcess(['webhooks', 'rotate-secret'], made, args, { env: { ...env, ...more } });
}

/** The ids of the account's webhooks at `path` on the receiver. */
async function webhooksAt(path: string): Promise<string[]> {
  const listed = await cli(['webhooks', 'list', '--all', '--json', '--jq', `.data[] | select(.url == "${receiver.url}${path}") | .id`]);
  return listed.stdout.split('\n').filter(Boolean);
}

describe('two rotate-secret runs at once on one --secret-file', () => {
  it('the second is refused at once (exit 2), whatever account lock it took (another config dir); the first finishes, its journal whole', async () => {
    const oldId = await created('/two-runs');
    const file = join(workDir, 'two-runs.secret');
    let second: CliResult | undefined;
    const first = await rotate([oldId, '--secret-file', file, '--yes'], async (point) => {
      if (point === 'create-noted')
        second = await rotate([oldId, '--secret-file', file, '--yes'], undefined, { WHSVC_CONFIG_DIR: join(workDir, 'other-config') });
    });
    expect(second).toMatchObject({
      code: 2,
      stderr:
        `whsvc: another whsvc (process ${process.pid}) is rotating with --secret-file ${file}: its journal is in use\n` +
        `hint: one rotation per --secret-file at a time: let that one end; if no whsvc is running, delete ${join(workDir, '.two-runs.secret.whsvc-rotate.lock')}\n`,
    });
    expect(first.code, first.stderr).toBe(0);
    const [twin] = await webhooksAt('/two-runs');
    expect(await webhooksAt('/two-runs')).toEqual([twin]);
    const again = await rotate([oldId, '--secret-file', file, '--yes']);
    expect(again.stdout).toBe(`${oldId} was rotated already: it is now ${twin}, whose secret is in ${file}. Nothing to do.\n`);
    expect(existsSync(join(workDir, '.two-runs.secret.whsvc-rotate.lock'))).toBe(false);
  });
});

/** A journal beside `secretFile` with `lines`, as a user's editor (or someone else) would write it. */
function plantJournal(secretFile: string, lines: object[]): void {
  writeFileSync(journalPath(secretFile), lines.map((line) => `${JSON.stringify({ whsvc_rotate: 1, ...line })}\n`).join(''), { mode: 0o600 });
}

describe('a journal rotate-secret did not write as it stands', () => {
  it('one that names another webhook at the URL as the twin (edited, or planted): refused, nothing deleted nor changed; --dry-run and --cancel alike', async () => {
    const oldId = await created('/planted');
    const victim = await created('/planted', 'product.updated');
    const file = join(workDir, 'planted.secret');
    const start = { service: sandbox.info.base_url, old: oldId, url: `${receiver.url}/planted`, events: ['invoice.paid'] };
    plantJournal(file, [{ start }, { create: { others: [victim] } }, { twin: victim }]);
    for (const more of [['--yes'], ['--dry-run'], ['--cancel', '--yes']]) {
      const result = await rotate([oldId, '--secret-file', file, ...more]);
      expect(result.code, result.stderr).toBe(1);
      expect(result.stderr).toContain(
        `whsvc: the rotate-secret journal ${journalPath(file)} names ${victim} as the twin of ${oldId}, but it is not the webhook rotate-secret made: it was at the URL before the twin was created; nothing was changed\n`,
      );
    }
    // Not named among those there before the create: it is active, where a twin stays paused until the switch.
    plantJournal(file, [{ start }, { create: { others: [] } }, { twin: victim }]);
    const active = await rotate([oldId, '--secret-file', file, '--cancel', '--yes']);
    expect(active.stderr, active.stdout).toMatch(/but it is not the webhook rotate-secret made: it is active/);
    expect((await webhooksAt('/planted')).sort()).toEqual([oldId, victim].sort());
    expect(JSON.parse((await cli(['webhooks', 'get', oldId, '--json'])).stdout)).toMatchObject({ active: true });
  });

  it('one that names a paused webhook with the same events, made before the old webhook, as made by its create: refused', async () => {
    const early = await created('/planted-early', 'invoice.paid', ['--inactive']);
    const oldId = await created('/planted-early');
    const madeAt = async (id: string) => Date.parse(JSON.parse((await cli(['webhooks', 'get', id, '--json'])).stdout).created_at);
    expect(await madeAt(early)).toBeLessThan(await madeAt(oldId));
    const file = join(workDir, 'planted-early.secret');
    const start = { service: sandbox.info.base_url, old: oldId, url: `${receiver.url}/planted-early`, events: ['invoice.paid'] };
    // Its create journaled with no time (as an earlier whsvc wrote it), or with a time long before.
    for (const at of [undefined, '2020-01-01T00:00:00.000Z']) {
      plantJournal(file, [{ start }, { create: { others: [], events: ['invoice.paid'], at } }, { twin: early }]);
      const cancelled = await rotate([oldId, '--secret-file', file, '--cancel', '--yes']);
      expect(cancelled.code).toBe(1);
      expect(cancelled.stderr).toMatch(/but it is not the webhook rotate-secret made: it was made \(\S+\) before the rotation began; nothing was changed/);
    }
    expect((await webhooksAt('/planted-early')).sort()).toEqual([oldId, early].sort());
  });

  it.runIf(process.geteuid?.() === 0)(
    "another user's (in a shared directory, sticky as /tmp is), or one with other hard links: refused before anything is read or sent (exit 2)",
    async () => {
      const oldId = await created('/theirs');
      const victim = await created('/theirs', 'invoice.paid', ['--inactive']);
      const shared = join(workDir, 'shared');
      mkdirSync(shared);
      chmodSync(shared, 0o1777);
      const file = join(shared, 'theirs.secret');
      const start = { service: sandbox.info.base_url, old: oldId, url: `${receiver.url}/theirs`, events: ['invoice.paid'] };
      plantJournal(file, [{ start }, { create: { others: [] } }, { twin: victim }]);
      chownSync(journalPath(file), 65534, 65534);
      const theirs = await rotate([oldId, '--secret-file', file, '--yes', '--debug']);
      expect(theirs.code).toBe(2);
      expect(theirs.stderr).toContain(`whsvc: the rotate-secret journal ${journalPath(file)} belongs to another user (uid 65534)\n`);
      expect(requests(theirs.stderr)).toEqual([]);
      rmSync(journalPath(file));
      plantJournal(file, [{ start }, { create: { others: [] } }, { twin: victim }]);
      linkSync(journalPath(file), join(shared, 'elsewhere'));
      const linked = await rotate([oldId, '--secret-file', file, '--cancel', '--yes', '--debug']);
      expect(linked.code).toBe(2);
      expect(linked.stderr).toContain(`whsvc: the rotate-secret journal ${journalPath(file)} has other hard links: it would change another file too\n`);
      expect(requests(linked.stderr)).toEqual([]);
      expect((await webhooksAt('/theirs')).sort()).toEqual([oldId, victim].sort());
    },
  );
});

describe('what an earlier run left, cleared before the twin is made', () => {
  it.each([
    [
      'twin-noted',
      'the twin made, its secret never written',
      (id: string, file: string) => `First, the twin ${id} an earlier run made is deleted: its secret never reached ${file}.`,
    ],
    [
      'twin-made',
      'the answer to its create lost',
      (id: string) =>
        `First, ${id} is deleted: an earlier run's create of the twin got no answer, and made it (paused, at the URL with the same events, made since), without its secret.`,
    ],
  ] as const)('stopped at %s (%s): the plan names the webhook deleted first, and the run deletes it', async (point, _what, line) => {
    const path = `/left-${point}`;
    const oldId = await created(path);
    const file = join(workDir, `left-${point}.secret`);
    const stopped = await rotate([oldId, '--secret-file', file, '--yes'], async (at) => {
      if (at === point) throw new CliError(`stopped at ${at} (the test)`);
    });
    expect(stopped.code).toBe(1);
    const [left] = (await webhooksAt(path)).filter((id) => id !== oldId);
    const plan = await rotate([oldId, '--secret-file', file, '--dry-run']);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain(`\n  ${line(left!, file)}\n`);
    expect(plan.stdout).not.toContain('has the same URL too');
    const json = await rotate([oldId, '--secret-file', file, '--dry-run', '--json']);
    expect(JSON.parse(json.stdout).clear_first).toEqual({ delete: [left], remove: [] });
    const finished = await rotate([oldId, '--secret-file', file, '--yes', '--json']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(await webhooksAt(path)).toEqual([JSON.parse(finished.stdout).new_id]);
  });

  it('the twin gone (deleted by hand) with its secret in the file: the plan names the file removed, and the run removes it', async () => {
    const oldId = await created('/left-gone');
    const file = join(workDir, 'left-gone.secret');
    const stopped = await rotate([oldId, '--secret-file', file, '--yes'], async (at) => {
      if (at === 'created') throw new CliError('stopped (the test)');
    });
    expect(stopped.code).toBe(1);
    const [twin] = (await webhooksAt('/left-gone')).filter((id) => id !== oldId);
    expect((await cli(['webhooks', 'delete', twin!, '--yes'])).code).toBe(0);
    const plan = await rotate([oldId, '--secret-file', file, '--dry-run']);
    expect(plan.stdout).toContain(`\n  First, ${file} is removed: it holds the secret of the twin ${twin} an earlier run made, which is gone.\n`);
    const json = await rotate([oldId, '--secret-file', file, '--dry-run', '--json']);
    expect(JSON.parse(json.stdout).clear_first).toEqual({ delete: [], remove: [file] });
    const finished = await rotate([oldId, '--secret-file', file, '--yes']);
    expect(finished.code, finished.stderr).toBe(0);
    expect(finished.stderr).toContain(`whsvc: the twin ${twin} an earlier run made is gone: its secret's file ${file} is removed, and the twin made anew\n`);
  });
});

describe('a service that answers for the twin with another URL than it was given', () => {
  it.each([
    ['its create', 'made', (method: string, path: string) => method === 'POST' && path === '/v1/webhooks'],
    ['its resume', 'resumed', (method: string, _path: string, body: Record<string, unknown>) => method === 'PATCH' && body.active === true],
  ] as const)('(%s): the twin deleted before anything switches, said, exit 1; the old webhook delivers as before', async (_which, verb, rewritten) => {
    const path = `/evil-${verb}`;
    const oldId = await created(path);
    const file = join(workDir, `evil-${verb}.secret`);
    const front = await startRewritingFront(sandbox.info.base_url, (method, path, body) => {
      if (rewritten(method, path, body)) body.url = 'https://evil.example/steal';
    });
    try {
      const result = await rotate([oldId, '--secret-file', file, '--yes'], undefined, { WHSVC_BASE_URL: front.url });
      expect(result.code).toBe(1);
      expect(result.stdout).not.toContain('Done');
      expect(result.stderr).toMatch(
        new RegExp(
          `whsvc: the service ${verb} the twin (wh_\\w+) unlike ${oldId}: it is at https://evil\\.example/steal, not at ${receiver.url}${path}; the twin is deleted, nothing was switched, and ${oldId} delivers as before\n`,
        ),
      );
    } finally {
      await front.close();
    }
    expect(await webhooksAt(path)).toEqual([oldId]);
    expect(JSON.parse((await cli(['webhooks', 'get', oldId, '--json'])).stdout)).toMatchObject({ active: true });
    expect(existsSync(file)).toBe(false);
    // Against a service that keeps what it is given, the same command rotates it.
    const again = await rotate([oldId, '--secret-file', file, '--yes']);
    expect(again.code, again.stderr).toBe(0);
  });
});

/** The sandbox's answers without what the interface does not give: an attempt's next_attempt_at and delivery_id. */
function asTheInterfaceSays(method: string, path: string, body: Record<string, unknown>): void {
  const strip = (item: Record<string, unknown>) => {
    delete item.next_attempt_at;
    delete item.delivery_id;
  };
  if (method === 'GET' && path.endsWith('/deliveries')) for (const item of body.data as Record<string, unknown>[]) strip(item);
  if (path.includes('/webhook-deliveries/')) strip(body);
}

describe('against a service as the interface describes it (no next_attempt_at, no delivery_id in its log)', () => {
  it('a delivery failed once and delivered on its retry before the rotation does not keep the old webhook: it finishes', async () => {
    const oldId = await created('/plain', 'sales_order.created');
    // A failed attempt in the old webhook's log, then its retry delivered.
    let refused = false;
    const failing = await startReceiver(() => {
      const status = refused ? 200 : 500;
      refused = true;
      return status;
    });
    try {
      expect((await cli(['webhooks', 'update', oldId, '--url', `${failing.url}/plain`])).code).toBe(0);
      // The test send fails (500), and, with --max-attempts 1, no automatic retry follows.
      expect((await cli(['test', oldId])).code).toBe(1);
      const failed = await cli(['deliveries', 'list', oldId, '--json', '--jq', '.data[0].id']);
      const retried = await cli(['deliveries', 'retry', failed.stdout.trim()]);
      expect(retried.code, retried.stderr).toBe(0);
      expect((await cli(['webhooks', 'update', oldId, '--url', `${receiver.url}/plain`])).code).toBe(0);
    } finally {
      await failing.close();
    }
    const front = await startRewritingFront(sandbox.info.base_url, asTheInterfaceSays);
    try {
      const result = await rotate([oldId, '--secret-file', join(workDir, 'plain-new.secret'), '--yes'], undefined, { WHSVC_BASE_URL: front.url });
      expect(result.stderr).not.toContain('did not get through');
      expect(result.code, result.stderr).toBe(0);
    } finally {
      await front.close();
    }
    expect((await cli(['webhooks', 'get', oldId])).code).toBe(5);
  });

  it('an event refused by the old webhook after the twin was made is sent again, delivered, and settled in the journal: once', async () => {
    const path = '/plain-after';
    const oldId = await created(path, 'sales_order.created');
    const file = join(workDir, 'plain-after.secret');
    const front = await startRewritingFront(sandbox.info.base_url, asTheInterfaceSays);
    const answer = receiver.respondWith;
    try {
      const result = await rotate(
        [oldId, '--secret-file', file, '--yes', '--json'],
        async (point) => {
          if (point !== 'created') return;
          let refuse = true;
          receiver.respondWith = (request) => {
            if (request.path !== path || !refuse) return answer(request);
            refuse = false;
            return 500;
          };
          const seen = receiver.received.length;
          await postEvent(sandbox.info.base_url, 'sales_order.created', { id: 'so_after' });
          await receiver.waitFor(seen + 1, 20_000);
        },
        { WHSVC_BASE_URL: front.url },
      );
      expect(result.code, result.stderr).toBe(0);
      const resent = JSON.parse(result.stdout).old_deliveries_resent;
      expect(resent).toEqual([expect.objectContaining({ event: 'sales_order.created', outcome: 'delivered' })]);
      const settled = readFileSync(journalPath(file), 'utf8')
        .split('\n')
        .filter((line) => line.includes('"settled"'));
      expect(settled).toEqual([`{"whsvc_rotate":1,"settled":["${resent[0].delivery_id}"]}`]);
    } finally {
      receiver.respondWith = answer;
      await front.close();
    }
    expect(receiver.received.filter((request) => request.path === path && request.body.includes('so_after'))).toHaveLength(2);
  });
});
