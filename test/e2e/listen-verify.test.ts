import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, sandboxEnv } from '../helpers/cli.js';
import { runInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// What only a shell shows: bash's completion asks the built whsvc for its candidates (`whsvc __complete …`). listen,
// verify and the scripts of the other shells are in test/integration/listen-verify.test.ts; each script in its own shell
// (bash, zsh, fish) against a stub whsvc in test/unit/commands/completion/completion-scripts.test.ts.

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-completion-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

describe('whsvc completion', () => {
  const bashComplete = (line: string, env: Record<string, string> = {}) => {
    // Source the script in a real bash, then ask the completion function what it offers for `line`.
    const script = `
      source <(whsvc completion bash)
      COMP_WORDS=(${line}); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
      [[ "${line}" == *" " ]] && { COMP_WORDS+=(""); COMP_CWORD=$(( COMP_CWORD + 1 )); }
      _whsvc_complete
      printf '%s\\n' "\${COMPREPLY[@]}"`;
    const binDir = mkdtempSync(join(workDir, 'bin-'));
    writeFileSync(join(binDir, 'whsvc'), `#!/bin/sh\nexec "${process.execPath}" "${WHSVC_BIN}" "$@"\n`, { mode: 0o755 });
    const result = spawnSync('bash', ['-c', script], { env: { ...process.env, ...env, PATH: `${binDir}:${process.env.PATH}` }, encoding: 'utf8' });
    return result.stdout.trim().split('\n').filter(Boolean);
  };

  it('completes commands, subcommands and flags in bash, and event types from the catalog the service returned', async () => {
    expect(bashComplete('whsvc web')).toEqual(['webhooks']);
    expect(bashComplete('whsvc webhooks ')).toEqual(['list', 'get', 'create', 'update', 'delete', 'health', 'apply', 'export', 'rotate-secret']);
    expect(bashComplete('whsvc webhooks create --sec')).toEqual(['--secret-file']);
    expect(bashComplete('whsvc webhooks apply --s')).toEqual(['--secret-dir']);
    expect(bashComplete('whsvc a')).toEqual(['auth', 'api']);
    expect(bashComplete('whsvc deliveries list wh_1 --status f')).toEqual(['failed']);

    // The catalog cached by an earlier command (run in-process: only the completion needs the binary).
    const env = sandboxEnv(sandbox.info, join(workDir, 'config'));
    expect((await runInProcess(['events'], { env })).code).toBe(0);
    expect(bashComplete('whsvc webhooks create --events inv', env)).toEqual(['inventory.changed', 'invoice.paid']);
    expect(bashComplete('whsvc test wh_1 --event prod', env)).toEqual(['product.updated', 'production_order.completed']);
  });
});
