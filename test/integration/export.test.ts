import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// webhooks export against the sandbox, both in-process: an account of 300 webhooks (two pages of the list), exported,
// is what webhooks apply takes back with nothing to change, in each of the forms export writes.

let sandbox: SandboxInProcess;
let workDir: string;
let env: Record<string, string>;

const whsvc = (args: string[], input?: string) => runInProcess(args, { env, input });

const EVENT_SETS = [['invoice.paid'], ['invoice.paid', 'sales_order.created'], ['product.updated', 'inventory.changed', 'production_order.completed']];

/** The account's webhooks as list --all --json gives them, in its order. */
async function listed(): Promise<Array<Record<string, unknown>>> {
  const result = await whsvc(['webhooks', 'list', '--all', '--json']);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout).data;
}

/** `apply --prune --dry-run` of a file's text on stdin (read as YAML, which reads JSON too) or of a file. */
async function plannedChanges(from: { text: string } | { file: string }): Promise<string> {
  const result =
    'text' in from
      ? await whsvc(['webhooks', 'apply', '-f', '-', '--prune', '--dry-run'], from.text)
      : await whsvc(['webhooks', 'apply', '-f', from.file, '--prune', '--dry-run']);
  expect(result.code, result.stderr).toBe(0);
  expect(result.stderr).toBe('Dry run: nothing would change.\n');
  return result.stdout;
}

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-export-'));
  env = sandboxEnv(sandbox.info, join(workDir, 'config'));
  // 300 webhooks, made by one apply: a third paused, three sets of events, URLs with a query, a port and a path of their own.
  const webhooks = Array.from({ length: 300 }, (_, index) => ({
    url: `https://team-${index % 7}.example.com${index % 5 === 0 ? ':8443' : ''}/hooks/${index}${index % 4 === 0 ? `?tenant=${index}&v=2` : ''}`,
    events: EVENT_SETS[index % EVENT_SETS.length],
    active: index % 3 !== 0,
  }));
  writeFileSync(join(workDir, 'seed.json'), JSON.stringify({ webhooks }));
  const seeded = await whsvc(['webhooks', 'apply', '-f', join(workDir, 'seed.json'), '--secret-dir', join(workDir, 'secrets')]);
  expect(seeded.code, seeded.stderr).toBe(0);
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('webhooks export', () => {
  it('of 300 webhooks, piped to webhooks apply -f - --prune --dry-run, plans nothing', async () => {
    const exported = await whsvc(['webhooks', 'export']);
    expect(exported.code, exported.stderr).toBe(0);
    expect(exported.stderr).toBe('');
    expect(exported.stdout).toMatch(
      /^# 300 webhooks of http:\/\/127\.0\.0\.1:\d+, by whsvc webhooks export; whsvc webhooks apply -f FILE takes it back\nwebhooks:\n {2}- url: https:\/\//,
    );
    expect(await plannedChanges({ text: exported.stdout })).toMatch(/^No changes: .* \(300 unchanged\)\.\n$/);
  });

  it('on a terminal: the YAML laid out for its width (comments go on as comments, values deeper than their keys), the same document as in a pipe, which apply takes back', async () => {
    const piped = await whsvc(['webhooks', 'export']);
    for (const columns of [60, 80]) {
      const shown = await runInProcess(['webhooks', 'export'], { env, terminal: { columns } });
      expect(shown.code, shown.stderr).toBe(0);
      const lines = shown.stdout.split('\n');
      // No line wider, but a URL wider than the room after its indent: it stays there whole, as YAML needs it.
      expect(
        lines.filter((line) => line.length > columns && !/^ {6}\S+$/.test(line)),
        shown.stdout,
      ).toEqual([]);
      if (columns === 80) expect(lines.filter((line) => line.length > columns)).toEqual([]);
      // The command it names (`whsvc webhooks export`) whole on the line where it fits.
      expect(lines.slice(0, 2).join('\n')).toMatch(/^# 300 webhooks of http:\/\/127\.0\.0\.1:\d+, by(?: .*)?\n# \S/);
      // At 60 a URL with a port and a query, and product.updated, inventory.changed, production_order.completed, go on under their key.
      if (columns === 60) expect(shown.stdout).toMatch(/^ {2}- url:\n {6}https:\/\/\S+$/m);
      if (columns === 60) expect(shown.stdout).toMatch(/^ {4}events: \[product\.updated, inventory\.changed,\n {6}production_order\.completed\]$/m);
      expect(load(shown.stdout)).toEqual(load(piped.stdout));
      expect(await plannedChanges({ text: shown.stdout })).toMatch(/\(300 unchanged\)\.\n$/);
    }
  });

  it("keeps every field of each webhook that is not the service's own (id, times): the same values as list gives, in its order", async () => {
    const account = await listed();
    expect(account).toHaveLength(300);
    const exported = await whsvc(['webhooks', 'export', '--json']);
    expect(exported.code, exported.stderr).toBe(0);
    const document = JSON.parse(exported.stdout);
    expect(Object.keys(document)).toEqual(['webhooks']);
    const own = ['id', 'created_at', 'updated_at'];
    expect(document.webhooks).toEqual(account.map((webhook) => Object.fromEntries(Object.entries(webhook).filter(([key]) => !own.includes(key)))));
    expect(document.webhooks.filter((webhook: { active: boolean }) => !webhook.active)).toHaveLength(100);
    // The YAML says the same.
    const yaml = await whsvc(['webhooks', 'export']);
    expect(load(yaml.stdout)).toEqual(document);
  });

  it('-o FILE: YAML for .yaml and .yml, JSON for any other name (as apply reads them), written whole, 0600; each applied back plans nothing', async () => {
    for (const [name, format] of [
      ['webhooks.yaml', 'yaml'],
      ['webhooks.yml', 'yaml'],
      ['webhooks.json', 'json'],
      ['webhooks', 'json'],
    ] as const) {
      const path = join(workDir, name);
      const result = await whsvc(['webhooks', 'export', '-o', path]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toBe('');
      expect(result.stderr).toBe(`✓ 300 webhooks written to ${path}\n`);
      const text = readFileSync(path, 'utf8');
      if (format === 'json') expect(JSON.parse(text).webhooks).toHaveLength(300);
      else expect(text).toMatch(/^# 300 webhooks of /);
      expect(lstatSync(path).mode & 0o777).toBe(0o600);
      expect(await plannedChanges({ file: path })).toMatch(/\(300 unchanged\)/);
    }
    const json = await whsvc(['webhooks', 'export', '-o', join(workDir, 'summary.yaml'), '--json']);
    expect(JSON.parse(json.stdout)).toEqual({ file: join(workDir, 'summary.yaml'), format: 'yaml', count: 300 });
  });

  it('-o refuses, before the account is read, a file that exists (without --force), a symlink, and a format given as a file name', async () => {
    const path = join(workDir, 'existing.yaml');
    writeFileSync(path, 'mine\n');
    const refused = await whsvc(['webhooks', 'export', '-o', path, '--debug']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`whsvc: --output ${path} already exists\nhint: pass --force to overwrite it`);
    expect(refused.stderr).not.toMatch(/^> GET /m);
    expect(readFileSync(path, 'utf8')).toBe('mine\n');
    const forced = await whsvc(['webhooks', 'export', '-o', path, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(path, 'utf8')).toMatch(/^# 300 webhooks/);
    const link = join(workDir, 'link.yaml');
    symlinkSync(path, link);
    const throughLink = await whsvc(['webhooks', 'export', '-o', link, '--force']);
    expect(throughLink.code).toBe(2);
    expect(throughLink.stderr).toContain(`--output ${link} is a symbolic link, not a regular file`);
    expect(await whsvc(['webhooks', 'export', '-o', 'json'])).toMatchObject({
      code: 2,
      stderr: 'whsvc: --output json names the file to write, not a format\nhint: JSON on stdout is --json, YAML is the default; a file named json: -o ./json\n',
    });
  });

  it('--active false: the paused ones only, and the file says what --prune would make of it', async () => {
    const result = await whsvc(['webhooks', 'export', '--active', 'false']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^# 100 webhooks of .*\n# only the paused ones: apply --prune would delete the others\n/);
    expect((load(result.stdout) as { webhooks: Array<{ active: boolean }> }).webhooks.every((webhook) => webhook.active === false)).toBe(true);
  });

  it('two webhooks at one URL: exit 1 naming both, nothing written (no file declares both for apply)', async () => {
    const [first] = await listed();
    const twin = await whsvc(['webhooks', 'create', '--url', String(first!.url), '--events', 'invoice.paid', '--json']);
    expect(twin.code, twin.stderr).toBe(0);
    const path = join(workDir, 'twins.yaml');
    const result = await whsvc(['webhooks', 'export', '-o', path]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(
      new RegExp(
        `^whsvc: the account cannot be written as a file apply takes back: webhooks (${first!.id} and ${JSON.parse(twin.stdout).id}|${JSON.parse(twin.stdout).id} and ${first!.id}) both deliver to \\S+\\nhint: apply knows one webhook per URL`,
      ),
    );
    expect(() => lstatSync(path)).toThrow();
    expect((await whsvc(['webhooks', 'delete', JSON.parse(twin.stdout).id, '--yes'])).code).toBe(0);
  });
});
