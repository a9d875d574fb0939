import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sandboxEnv, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { signatureOf } from '../helpers/delivery.js';

// What an API command loads of Node, seen from inside the built binary: a
// preload (NODE_OPTIONS=--require) writes Node's list of loaded built-ins at
// exit. The built-ins that cost milliseconds each and that a plain http://
// request does not need (HTTP/2, TLS, crypto, which undici requires as it
// loads) must load only when used: the start-up figures of docs/benchmarks.md depend on it.

const COSTLY = ['crypto', 'tls', 'http2', 'child_process', 'readline'];

describe('the built-ins a command loads', () => {
  let sandbox: SandboxProcess;
  let dir: string;
  let preload: string;

  beforeAll(async () => {
    sandbox = await startSandboxProcess(['--quiet', '--max-attempts', '1']);
    dir = mkdtempSync(join(tmpdir(), 'whsvc-modules-'));
    preload = join(dir, 'preload.cjs');
    writeFileSync(preload, "process.on('exit', () => require('node:fs').writeFileSync(process.env.MODULES_OUT, process.moduleLoadList.join('\\n')));\n");
  });

  afterAll(async () => {
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function loadedBy(args: string[], name: string, extraEnv: Record<string, string> = {}): Promise<{ modules: Set<string>; stdout: string }> {
    const out = join(dir, `${name}.txt`);
    const result = await runCli(args, {
      env: { ...sandboxEnv(sandbox.info, join(dir, 'config')), NODE_OPTIONS: `--require ${preload}`, MODULES_OUT: out, ...extraEnv },
    });
    expect(result.code, result.stderr).toBe(0);
    const modules = new Set(
      readFileSync(out, 'utf8')
        .split('\n')
        .filter((line) => line.startsWith('NativeModule '))
        .map((line) => line.slice('NativeModule '.length)),
    );
    return { modules, stdout: result.stdout };
  }

  it('webhooks list --json (token request and GET over http://) loads none of them; a command that checks a signature loads crypto', async () => {
    await runCli(['webhooks', 'create', '--url', 'https://example.com/hook', '--events', 'invoice.paid', '--json'], {
      env: sandboxEnv(sandbox.info, join(dir, 'config')),
    });
    const { modules, stdout } = await loadedBy(['webhooks', 'list', '--json'], 'list');
    expect(JSON.parse(stdout).data).toHaveLength(1);
    expect(modules.has('http'), 'the list is read, so this sees what was loaded').toBe(true);
    expect(COSTLY.filter((name) => modules.has(name))).toEqual([]);

    // A command that checks a signature loads crypto then (so the check above can fail).
    const payload = join(dir, 'payload.json');
    writeFileSync(payload, '{"id":"inv_1"}');
    const signature = signatureOf('whsec_x', '{"id":"inv_1"}');
    const verified = await loadedBy(['verify', '--secret', 'whsec_x', '--payload-file', payload, '--signature', signature], 'verify');
    expect(verified.modules.has('crypto')).toBe(true);
  });

  it('recover and tail leave the compile cache as the next command needs it', async () => {
    // V8's flags are part of what Node's compile cache checks: a command that set any (recover and tail once did, for
    // their memory) would have a module's entry rewritten for them, and rejected by the next command.
    const env = { ...sandboxEnv(sandbox.info, join(dir, 'config')), NODE_COMPILE_CACHE: join(dir, 'compile-cache') };
    const created = await runCli(['webhooks', 'create', '--url', 'http://127.0.0.1:9/down', '--events', 'invoice.paid', '--json'], { env });
    expect(created.code, created.stderr).toBe(0);
    const webhook = JSON.parse(created.stdout).id as string;
    const trigger = await runCli(['sandbox', 'trigger', 'invoice.paid', '--base-url', sandbox.info.base_url], { env });
    expect(trigger.code, trigger.stderr).toBe(0);
    await expect
      .poll(async () => JSON.parse((await runCli(['deliveries', 'list', webhook, '--status', 'failed', '--json'], { env })).stdout).data.length, {
        timeout: 10_000,
        interval: 100,
      })
      .toBeGreaterThan(0);
    const rejectedByNextCommand = async () => {
      const next = await runCli(['webhooks', 'list', '--json'], { env: { ...env, NODE_DEBUG_NATIVE: 'COMPILE_CACHE' } });
      expect(next.code).toBe(0);
      expect(next.stderr, 'the cache was read').toMatch(/was accepted/);
      return next.stderr.split('\n').filter((line) => /rejected/.test(line));
    };
    for (let i = 0; i < 2; i += 1) expect((await runCli(['webhooks', 'list', '--json'], { env })).code).toBe(0);
    expect(await rejectedByNextCommand()).toEqual([]);
    const recover = await runCli(['deliveries', 'recover', '--webhook', webhook, '--yes', '--json'], { env });
    expect(JSON.parse(recover.stdout).summary.resent, recover.stderr).toBe(1);
    expect(await rejectedByNextCommand(), 'after recover').toEqual([]);
    const tail = await runCli(['deliveries', 'tail', '--json', '--since', '1h', '--count', '1', '--timeout', '20'], { env });
    expect(tail.code, tail.stderr).toBe(0);
    expect(await rejectedByNextCommand(), 'after tail').toEqual([]);
  });
});
