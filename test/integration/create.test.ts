import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// webhooks create against the sandbox, both in-process: the warning of a second webhook at one URL, and --dry-run.

let sandbox: SandboxInProcess;
let workDir: string;
let env: Record<string, string>;

const create = (args: string[], extra: Record<string, string> = {}) => runInProcess(['webhooks', 'create', ...args], { env: { ...env, ...extra } });

/** Creates a webhook for the test's setup; its id. */
async function made(url: string, events: string): Promise<string> {
  const result = await create(['--url', url, '--events', events, '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).id as string;
}

/** stderr without the note of the secret shown once, which every create without --secret-file ends with. */
const warnings = (stderr: string) => stderr.replace(/^! Save the signing secret now.*\n/m, '');

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-create-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('webhooks create: another webhook at the same URL', () => {
  it('is said in one line on stderr, with the event types that will arrive twice; the URL compared as apply keys it; --json keeps its shape', async () => {
    const first = await made('https://billing.example.com/hooks', 'invoice.paid,product.updated');
    const second = await create(['--url', 'HTTPS://Billing.Example.com:443/hooks', '--events', 'invoice.paid,sales_order.created,product.updated', '--json']);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stderr).toBe(
      `! webhook ${first} delivers to https://billing.example.com/hooks already: invoice.paid, product.updated will arrive there twice, once from each webhook\n`,
    );
    expect(Object.keys(JSON.parse(second.stdout)).sort()).toEqual(['active', 'created_at', 'events', 'id', 'signing_secret', 'url']);
    // Each event type with the webhooks that deliver it: the first has no sales_order.created.
    const third = await create(['--url', 'https://billing.example.com/hooks', '--events', 'invoice.paid,sales_order.created']);
    expect(third.code, third.stderr).toBe(0);
    const listed = JSON.parse((await runInProcess(['webhooks', 'list', '--json'], { env })).stdout).data.map((webhook: { id: string }) => webhook.id);
    const [a, b] = listed.filter((id: string) => id === first || id === JSON.parse(second.stdout).id);
    expect(warnings(third.stderr)).toBe(
      `! webhooks ${a}, ${b} deliver to https://billing.example.com/hooks already: invoice.paid will arrive there 3 times, from ${a}, ${b} and the new one; ` +
        `sales_order.created twice, from ${JSON.parse(second.stdout).id} and the new one\n`,
    );
  });

  it('with no event type in common, says that two webhooks at one URL are what apply refuses', async () => {
    const first = await made('https://ops.example.com/hooks', 'inventory.changed');
    const second = await create(['--url', 'https://ops.example.com/hooks', '--events', 'production_order.completed']);
    expect(second.code, second.stderr).toBe(0);
    expect(warnings(second.stderr)).toBe(
      `! webhook ${first} delivers to https://ops.example.com/hooks already (other event types): webhooks apply, which knows webhooks by URL, refuses two at one URL\n`,
    );
  });

  it('another URL (another path) is no warning', async () => {
    const result = await create(['--url', 'https://billing.example.com/hooks/v2', '--events', 'invoice.paid']);
    expect(result.code, result.stderr).toBe(0);
    expect(warnings(result.stderr)).toBe('');
  });

  it('a read that fails (a token that may write, not read) is said, and the webhook is created all the same', async () => {
    // The catalog, read once with the whole scope, is kept for the check of event types.
    await made('https://scoped.example.com/hooks', 'invoice.paid');
    const result = await create(['--url', 'https://scoped.example.com/hooks', '--events', 'invoice.paid', '--json'], { WHSVC_SCOPE: 'webhooks:write' });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^! could not check whether another webhook delivers to https:\/\/scoped\.example\.com\/hooks: .*webhooks:read.*\n$/);
    expect(JSON.parse(result.stdout).url).toBe('https://scoped.example.com/hooks');
  });
});

describe('webhooks create --dry-run', () => {
  const listed = async () => {
    const result = await runInProcess(['webhooks', 'list', '--all', '--json'], { env });
    return JSON.parse(result.stdout).data as Array<{ id: string }>;
  };
  /** The requests a --debug run sent, but reads and the token: none may be. */
  const writes = (stderr: string) => [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].filter((m) => m[1] !== 'GET' && !m[2]!.endsWith('/v1/oauth/token'));

  it('says what would be created, the URL as the service keeps it and where the secret would go; sends nothing but reads', async () => {
    const before = await listed();
    const result = await create([
      '--url',
      'HTTPS://Dry.Example.com:443/hooks',
      '--events',
      'invoice.paid,product.updated',
      '--inactive',
      '--dry-run',
      '--debug',
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      'url             https://dry.example.com/hooks\nevents          invoice.paid, product.updated\nstatus          paused\nsigning secret  shown once, when it is created\n',
    );
    expect(result.stderr).toMatch(/Dry run: nothing was sent\.\n$/);
    expect(writes(result.stderr)).toEqual([]);
    expect(await listed()).toEqual(before);
  });

  it('--json: one document saying dry_run, with the fields create would send and the secret file (null: shown once)', async () => {
    const secretFile = join(workDir, 'dry.secret');
    const result = await create(['--url', 'https://dry.example.com/hooks', '--events', 'invoice.paid', '--secret-file', secretFile, '--dry-run', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      dry_run: true,
      url: 'https://dry.example.com/hooks',
      events: ['invoice.paid'],
      active: true,
      signing_secret_file: secretFile,
    });
    // Nothing written, not even the reservation's temporary beside it.
    expect(readdirSync(workDir).filter((name) => name.includes('dry.secret'))).toEqual([]);
  });

  it('checks as create does: an event type the catalog lacks, a secret file that exists without --force (left as it was), each exit 2', async () => {
    const unknown = await create(['--url', 'https://dry.example.com/hooks', '--events', 'invoice.payed', '--dry-run']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^whsvc: --events: event type "invoice\.payed" is not one of .*; did you mean invoice\.paid\?\n/);
    const existing = join(workDir, 'kept.secret');
    writeFileSync(existing, 'whsec_kept\n');
    const refused = await create(['--url', 'https://dry.example.com/hooks', '--events', 'invoice.paid', '--secret-file', existing, '--dry-run']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`whsvc: --secret-file ${existing} already exists\nhint: pass --force to overwrite it`);
    const forced = await create(['--url', 'https://dry.example.com/hooks', '--events', 'invoice.paid', '--secret-file', existing, '--force', '--dry-run']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain(`signing secret  written to ${existing} (mode 0600)`);
    expect(readFileSync(existing, 'utf8')).toBe('whsec_kept\n');
  });

  it('warns of another webhook at the URL as create does', async () => {
    const first = await made('https://dry-twin.example.com/hooks', 'invoice.paid');
    const result = await create(['--url', 'https://dry-twin.example.com/hooks', '--events', 'invoice.paid', '--dry-run']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toBe(
      `! webhook ${first} delivers to https://dry-twin.example.com/hooks already: invoice.paid will arrive there twice, once from each webhook\nDry run: nothing was sent.\n`,
    );
  });
});
