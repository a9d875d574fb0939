import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WHSVC_BIN, login } from '../helpers/cli.js';
import { startSandboxInProcess, usersInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { TmuxSession, hasTmux } from '../helpers/tmux.js';

// The habits users bring from gh (issue 35) where only a terminal shows them: login asks before it replaces another
// address. The rest, without a terminal: test/integration/habits.test.ts. The sandbox is only the service here: in-process.

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-habits-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc as run by a user with only a config dir, no address but what a flag or a profile gives. */
const user = usersInProcess(() => undefined);

describe.skipIf(!hasTmux && !process.env.CI)('login at a terminal (tmux)', () => {
  it('asks before it replaces another address, keeps the profile on no, and takes a pasted secret with trailing spaces on yes', async () => {
    const configDir = join(workDir, 'tty-replace');
    const { port } = new URL(sandbox.info.base_url);
    const first = await login(user.as(configDir), sandbox.info.client_id, sandbox.info.client_secret, ['--base-url', sandbox.info.base_url]);
    expect(first.code, first.stderr).toBe(0);
    const open = () =>
      new TmuxSession(`${process.execPath} ${WHSVC_BIN} login --base-url localhost:${port} --client-id ${sandbox.info.client_id}`, {
        WHSVC_CONFIG_DIR: configDir,
        TERM: 'xterm-256color',
      });
    const no = open();
    try {
      await no.waitFor(new RegExp(`Profile default holds client ${sandbox.info.client_id} at http://127\\.0\\.0\\.1:${port}\\. Replace it`));
      no.press('Enter');
      const screen = await no.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=1');
      expect(screen).toContain(`whsvc: nothing was stored: profile default keeps client ${sandbox.info.client_id} at http://127.0.0.1:${port}`);
    } finally {
      no.close();
    }
    const yes = open();
    try {
      await yes.waitFor(/Replace it/);
      yes.type('y');
      yes.press('Enter');
      await yes.waitFor(/Client secret/);
      yes.type(`${sandbox.info.client_secret}   `);
      yes.press('Enter');
      const screen = await yes.waitFor(/EXIT=\d+/);
      expect(screen).toContain('EXIT=0');
      expect(screen).toContain(`whsvc: replaced profile default, which held client ${sandbox.info.client_id} at http://127.0.0.1:${port}`);
      expect(screen).toContain(`Logged in to http://localhost:${port}`);
      expect(screen).not.toContain(sandbox.info.client_secret);
    } finally {
      yes.close();
    }
  });
});
