import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv, type CliResult } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// webhooks apply against the sandbox, both in-process: one account, taken from empty through the
// steps a repository's file goes through (first apply, again, an edit, --prune), each checked against the account.

let sandbox: SandboxInProcess;
let workDir: string;
let env: Record<string, string>;
/** Every apply's stdout and stderr: no secret may be in any. */
const outputs: string[] = [];
/** Every secret an apply wrote into secrets(), also those --prune removed later with their webhook. */
const secretValues = new Set<string>();

const file = () => join(workDir, 'webhooks.yaml');
const secrets = () => join(workDir, 'secrets');

async function apply(args: string[], extra: Record<string, string> = {}): Promise<CliResult> {
  const result = await runInProcess(['webhooks', 'apply', '-f', file(), ...args], { env: { ...env, ...extra } });
  outputs.push(result.stdout, result.stderr);
  const written = existsSync(secrets()) ? readdirSync(secrets()).filter((name) => name.endsWith('.secret')) : [];
  for (const name of written) secretValues.add(readFileSync(join(secrets(), name), 'utf8').trim());
  return result;
}

interface Listed {
  id: string;
  url: string;
  events: string[];
  active: boolean;
}

async function account(): Promise<Listed[]> {
  const result = await runInProcess(['webhooks', 'list', '--all', '--json'], { env });
  expect(result.code, result.stderr).toBe(0);
  return (JSON.parse(result.stdout).data as Listed[]).sort((a, b) => a.url.localeCompare(b.url));
}

const shape = (webhooks: Listed[]) => webhooks.map(({ url, events, active }) => ({ url, events: [...events].sort(), active }));

/** The requests a --debug run sent, as `METHOD path`. */
const sent = (stderr: string) => [...stderr.matchAll(/^> (\w+) (\S+)$/gm)].map((m) => `${m[1]} ${new URL(m[2]!).pathname}`);

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet', '--max-attempts', '1']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-apply-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('webhooks apply', () => {
  it('--dry-run on an empty account prints the plan and sends nothing', async () => {
    writeFileSync(
      file(),
      `# The webhooks of this repository
webhooks:
  - url: https://billing.example.com/hooks
    events: [invoice.paid]
  - url: https://ops.example.com/hooks   # paused until launch
    events: [inventory.changed, production_order.completed]
    active: false
  - url: https://sales.example.com/hooks
    events: [sales_order.created]
`,
    );
    const result = await apply(['--dry-run', '--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/3 to create, 0 to update, 0 to delete, 0 unchanged/);
    expect(result.stdout).toMatch(/\+ create +https:\/\/ops\.example\.com\/hooks +\(new\) +inventory\.changed, production_order\.completed \(paused\)/);
    expect(result.stderr).toContain('Dry run: nothing was sent.');
    expect(sent(result.stderr).filter((line) => !line.startsWith('GET ') && line !== 'POST /v1/oauth/token')).toEqual([]);
    expect(await account()).toEqual([]);
  });

  it('creating needs --secret-dir: exit 2, nothing created', async () => {
    const result = await apply([]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--secret-dir DIR is where they go');
    expect(await account()).toEqual([]);
  });

  it('on an empty account creates what the file says; each secret in its file, 0600', async () => {
    const result = await apply(['--secret-dir', secrets()]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Done: 3 created, 0 updated, 0 deleted, 0 unchanged.');
    const webhooks = await account();
    expect(shape(webhooks)).toEqual([
      { url: 'https://billing.example.com/hooks', events: ['invoice.paid'], active: true },
      { url: 'https://ops.example.com/hooks', events: ['inventory.changed', 'production_order.completed'], active: false },
      { url: 'https://sales.example.com/hooks', events: ['sales_order.created'], active: true },
    ]);
    expect(readdirSync(secrets()).sort()).toEqual(webhooks.map((w) => `${w.id}.secret`).sort());
    for (const webhook of webhooks) {
      const path = join(secrets(), `${webhook.id}.secret`);
      expect(statSync(path).mode & 0o777).toBe(0o600);
      expect(readFileSync(path, 'utf8')).toMatch(/^whsec_\S+$/);
      expect(result.stdout).toContain(`✓ created  ${webhook.id}  ${webhook.url}  (signing secret in ${path}, mode 0600)`);
    }
  });

  it('applied again, changes nothing and says so', async () => {
    const before = await account();
    const result = await apply(['--secret-dir', secrets(), '--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain("No changes: the account's webhooks are as");
    expect(result.stdout).toContain('(3 unchanged)');
    expect(sent(result.stderr).filter((line) => !line.startsWith('GET ') && line !== 'POST /v1/oauth/token')).toEqual([]);
    expect(await account()).toEqual(before);
    const json = await apply(['--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ changed: false, plan: { create: [], update: [], delete: [] }, outcome: { created: [] } });
  });

  it('after an edit, updates only what changed', async () => {
    const before = await account();
    writeFileSync(
      file(),
      `webhooks:
  - url: https://billing.example.com/hooks
    events: [invoice.paid, sales_order.created]
  - url: https://ops.example.com/hooks
    events: [production_order.completed, inventory.changed]
    active: true
`,
    );
    const result = await apply(['--secret-dir', secrets(), '--json', '--debug']);
    expect(result.code, result.stderr).toBe(0);
    const billing = before.find((w) => w.url.startsWith('https://billing'))!;
    const ops = before.find((w) => w.url.startsWith('https://ops'))!;
    const sales = before.find((w) => w.url.startsWith('https://sales'))!;
    const document = JSON.parse(result.stdout);
    expect(document.plan).toEqual({
      create: [],
      update: [
        { id: billing.id, url: billing.url, changes: { events: { from: ['invoice.paid'], to: ['invoice.paid', 'sales_order.created'] } } },
        { id: ops.id, url: ops.url, changes: { active: { from: false, to: true } } },
      ],
      delete: [],
      unchanged: [],
      not_in_file: [{ id: sales.id, url: sales.url }],
    });
    expect(document.outcome.updated.map((w: Listed) => w.id)).toEqual([billing.id, ops.id]);
    expect(sent(result.stderr).filter((line) => line.startsWith('PATCH '))).toEqual([`PATCH /v1/webhooks/${billing.id}`, `PATCH /v1/webhooks/${ops.id}`]);
    // Only the field that changed is sent: the events list for billing, active for ops.
    expect(result.stderr).toMatch(new RegExp(`> PATCH \\S+/${ops.id}\\n[^>]*\\n\\n\\{"active":true\\}`));
    const after = await account();
    expect(shape(after)).toEqual([
      { url: 'https://billing.example.com/hooks', events: ['invoice.paid', 'sales_order.created'], active: true },
      { url: 'https://ops.example.com/hooks', events: ['inventory.changed', 'production_order.completed'], active: true },
      { url: 'https://sales.example.com/hooks', events: ['sales_order.created'], active: true },
    ]);
    // The same webhooks (no delete and create): their ids are kept.
    expect(after.map((w) => w.id)).toEqual(before.map((w) => w.id));
  });

  it('with --prune deletes the rest, and only that, once --yes says so (no terminal: without it nothing changes, exit 2)', async () => {
    const before = await account();
    const unconfirmed = await apply(['--prune', '--secret-dir', secrets()]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toMatch(/the plan deletes \d+ webhooks? the file does not name: pass --yes to delete them/);
    expect(await account()).toEqual(before);
    const result = await apply(['--prune', '--yes', '--secret-dir', secrets()]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/- delete +https:\/\/sales\.example\.com\/hooks/);
    expect(result.stdout).toContain('Done: 0 created, 0 updated, 1 deleted, 2 unchanged.');
    expect((await account()).map((w) => w.id)).toEqual(before.filter((w) => !w.url.startsWith('https://sales')).map((w) => w.id));
  });

  it('--prune removes the secret file of each webhook it deletes (the secret is revoked with it), says so in the plan, the run and --json; the others stay', async () => {
    const sales = await runInProcess(['webhooks', 'create', '--url', 'https://sales.example.com/hooks', '--events', 'sales_order.created', '--json'], { env });
    const id = JSON.parse(sales.stdout).id as string;
    const path = join(secrets(), `${id}.secret`);
    // As an earlier apply would have left it.
    writeFileSync(path, 'whsec_kept_by_an_earlier_apply\n', { mode: 0o600 });
    const others = readdirSync(secrets()).filter((name) => name !== `${id}.secret`);
    const review = await apply(['--prune', '--dry-run', '--secret-dir', secrets()]);
    expect(review.stdout).toMatch(new RegExp(`- delete +https://sales\\.example\\.com/hooks +${id} +and its secret file ${path}\n`));
    expect(existsSync(path)).toBe(true);
    const result = await apply(['--prune', '--yes', '--secret-dir', secrets(), '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).outcome.deleted).toEqual([{ id, url: 'https://sales.example.com/hooks', removed_secret_file: path }]);
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(secrets()).sort()).toEqual(others.sort());
  });

  it('a failure part-way says what was done and what not; the same apply run again finishes the job', async () => {
    writeFileSync(
      file(),
      `webhooks:
  - url: https://billing.example.com/hooks
    events: [invoice.paid]
  - url: https://new.example.com/hooks
    events: [product.updated]
`,
    );
    // The read-only client can read the account, so the plan is made; its first change is refused (403).
    const readOnly = await apply(['--prune', '--yes', '--secret-dir', secrets()], {
      WHSVC_CLIENT_ID: sandbox.info.readonly_client_id,
      WHSVC_CLIENT_SECRET: sandbox.info.readonly_client_secret,
      WHSVC_CONFIG_DIR: join(workDir, 'config-ro'),
    });
    expect(readOnly.code).toBe(4);
    expect(readOnly.stderr).toMatch(/stopped after 0 of 3 changes; not done: create https:\/\/new\.example\.com\/hooks, update wh_\w+, delete wh_\w+/);
    expect(readOnly.stderr).toContain('the same apply, run again, finishes the job');
    const again = await apply(['--prune', '--yes', '--secret-dir', secrets()]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Done: 1 created, 1 updated, 1 deleted, 0 unchanged.');
    expect(shape(await account())).toEqual([
      { url: 'https://billing.example.com/hooks', events: ['invoice.paid'], active: true },
      { url: 'https://new.example.com/hooks', events: ['product.updated'], active: true },
    ]);
  });

  it('the same URL twice in the file, or twice in the account, is an error naming them, before anything changes', async () => {
    const before = await account();
    writeFileSync(
      file(),
      JSON.stringify({
        webhooks: [
          { url: 'https://billing.example.com/hooks', events: ['invoice.paid'] },
          { url: 'https://BILLING.example.com:443/hooks', events: ['sales_order.created'] },
        ],
      }),
    );
    const twiceInFile = await apply(['--prune', '--yes', '--secret-dir', secrets()]);
    expect(twiceInFile.code).toBe(2);
    expect(twiceInFile.stderr).toContain('webhooks[1]: https://billing.example.com/hooks is declared twice, at webhooks[0] and webhooks[1]');
    // A second webhook for a URL the file names, made past apply.
    const twin = await runInProcess(
      ['webhooks', 'create', '--url', 'https://new.example.com/hooks', '--events', 'invoice.paid', '--secret-file', join(workDir, 'twin.secret'), '--json'],
      { env },
    );
    expect(twin.code, twin.stderr).toBe(0);
    const twinId = JSON.parse(twin.stdout).id as string;
    writeFileSync(file(), JSON.stringify({ webhooks: [{ url: 'https://new.example.com/hooks', events: ['product.updated'] }] }));
    const twiceInAccount = await apply(['--prune', '--yes', '--secret-dir', secrets()]);
    expect(twiceInAccount.code).toBe(2);
    const original = before.find((w) => w.url === 'https://new.example.com/hooks')!;
    expect(twiceInAccount.stderr).toMatch(
      /^whsvc: webhooks wh_\w+ and wh_\w+ both have the URL https:\/\/new\.example\.com\/hooks \(declared at webhooks\[0\]\)/m,
    );
    expect(twiceInAccount.stderr).toContain(original.id);
    expect(twiceInAccount.stderr).toContain(twinId);
    expect((await account()).length).toBe(before.length + 1);
  });

  it("every mistake of the file at once, the catalog's included, each with its entry and URL: exit 2, nothing sent but reads", async () => {
    const before = await account();
    writeFileSync(
      file(),
      `webhooks:
  - url: https://billing.example.com/hooks
    events: [invoice.payed]
  - url: http://ops.example.com/hooks
    events: [inventory.changed]
    active: no
  - url: https://sales.example.com/hooks
    evnets: [sales_order.created]
`,
    );
    const result = await apply(['--prune', '--yes', '--secret-dir', secrets(), '--debug']);
    expect(result.code).toBe(2);
    // Its lines among --debug's exchanges.
    expect(result.stderr.split('\n').filter((line) => line.startsWith('whsvc: ') || line.startsWith('  webhooks['))).toEqual([
      `whsvc: ${file()} has 4 mistakes; nothing was changed:`,
      '  webhooks[1].url: the URL must use https (http is accepted only for localhost and 127.0.0.1)',
      '  webhooks[1].active: must be true or false',
      '  webhooks[2] (https://sales.example.com/hooks): unknown field "evnets"; did you mean events? (a webhook has url, events and active)',
      '  webhooks[0].events (https://billing.example.com/hooks): "invoice.payed" is not an event type of the service; did you mean invoice.paid?',
    ]);
    expect(sent(result.stderr).filter((line) => !line.startsWith('GET ') && line !== 'POST /v1/oauth/token')).toEqual([]);
    expect(await account()).toEqual(before);
  });

  it('no secret was in any output of any apply', () => {
    const values = [...secretValues];
    expect(values.length).toBeGreaterThanOrEqual(4);
    const all = outputs.join('\n');
    for (const value of values) expect(all).not.toContain(value);
    expect(all).not.toMatch(/whsec_/);
  });

  it("the README's CI recipe: each run with a fresh, empty --secret-dir exits 0, the first creating, the later ones changing nothing", async () => {
    writeFileSync(
      file(),
      JSON.stringify({
        webhooks: [
          { url: 'https://ci-billing.example.com/hooks', events: ['invoice.paid'] },
          { url: 'https://ci-ops.example.com/hooks', events: ['inventory.changed'], active: false },
        ],
      }),
    );
    const jq = ['--jq', '.outcome.created[] | "\\(.url) \\(.signing_secret_file)"'];
    const first = await apply(['--prune', '--yes', '--secret-dir', mkdtempSync(join(workDir, 'runner-temp-')), ...jq]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout.trim().split('\n')).toHaveLength(2);
    // The next job: a new runner, its secret directory empty. The webhooks it made were made into another.
    const review = await apply(['--prune', '--dry-run', '--secret-dir', mkdtempSync(join(workDir, 'runner-temp-'))]);
    expect(review.code, review.stderr).toBe(0);
    expect(review.stderr).toBe('Dry run: nothing would change.\n');
    const second = await apply(['--prune', '--yes', '--secret-dir', mkdtempSync(join(workDir, 'runner-temp-')), ...jq]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('');
    expect(second.stderr).toBe('');
  });

  it('two applies at once take turns: both finish, each secret in its file, the journal whole and then gone', async () => {
    const dir = mkdtempSync(join(workDir, 'shared-secrets-'));
    const files = ['a', 'b'].map((name) => {
      const path = join(workDir, `side-by-side-${name}.json`);
      writeFileSync(path, JSON.stringify({ webhooks: [{ url: `https://side-by-side-${name}.example.com/hooks`, events: ['invoice.paid'] }] }));
      return path;
    });
    const results = await Promise.all(files.map((path) => runInProcess(['webhooks', 'apply', '-f', path, '--secret-dir', dir, '--json'], { env })));
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const secretFiles = readdirSync(dir).filter((name) => name.endsWith('.secret'));
    expect(secretFiles).toHaveLength(2);
    for (const name of secretFiles) expect(readFileSync(join(dir, name), 'utf8').trim()).toMatch(/^whsec_/);
    expect(readdirSync(dir).filter((name) => !name.endsWith('.secret'))).toEqual([]);
  });

  it('two applies of one file at once make one webhook for its URL, not two: the second plans from what the first made', async () => {
    const path = join(workDir, 'raced.json');
    writeFileSync(path, JSON.stringify({ webhooks: [{ url: 'https://raced.example.com/hooks', events: ['invoice.paid'] }] }));
    const results = await Promise.all(
      [1, 2].map(() => runInProcess(['webhooks', 'apply', '-f', path, '--secret-dir', mkdtempSync(join(workDir, 'raced-')), '--json'], { env })),
    );
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    expect((await account()).filter((webhook) => webhook.url === 'https://raced.example.com/hooks')).toHaveLength(1);
  });
});
