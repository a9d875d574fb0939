import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { createWebhook, sandboxEnv, type Cli, type CliResult } from './cli.js';
import { inProcessCliWith, startSandboxInProcess, type SandboxInProcess } from './in-process.js';
import { startReceiver, type Receiver } from './receiver.js';

// After an outage, as the recover tests set it up: a real receiver that fails until told, and a sandbox (in the test's
// process) that tried each delivery once. The recover under test runs in-process or as a process of its own.

export interface RecoverSetup {
  sandbox: SandboxInProcess;
  receiver: Receiver;
  /** whsvc in-process as the user of the sandbox. */
  cli: Cli;
  env: Record<string, string>;
  /** A webhook to the receiver at `path`, for `events`: its id. */
  webhook: (path: string, events: string) => Promise<string>;
  /** Sends per X-Service-Delivery-Id, of every request the receiver got. */
  sends: () => Map<string, number>;
  down: { value: boolean };
  close: () => Promise<void>;
}

/** A sandbox with one automatic attempt per delivery (failures stay failed), and a receiver that is down until told; the config in a new dir under `workDir`. */
async function recoverSetup(workDir: string, name: string, sandboxArgs: string[]): Promise<RecoverSetup> {
  const sandbox = await startSandboxInProcess(['--quiet', '--max-attempts', '1', ...sandboxArgs]);
  const down = { value: true };
  const receiver = await startReceiver(() => (down.value ? 503 : 200));
  const env = sandboxEnv(sandbox.info, mkdtempSync(join(workDir, name)));
  const cli = inProcessCliWith(env);
  return {
    sandbox,
    receiver,
    env,
    cli,
    webhook: async (path, events) => (await createWebhook(cli, `${receiver.url}${path}`, events)).id,
    sends: () => {
      const counts = new Map<string, number>();
      for (const r of receiver.received) {
        const id = String(r.headers['x-service-delivery-id']);
        counts.set(id, (counts.get(id) ?? 0) + 1);
      }
      return counts;
    },
    down,
    close: async () => {
      await Promise.all([sandbox.stop(), receiver.close()]);
    },
  };
}

/** The setups of one test file, their config dirs under one temporary dir: `closeAll` when the file ends. */
export function recoverSetups(): { setup: (name: string, sandboxArgs?: string[]) => Promise<RecoverSetup>; closeAll: () => Promise<void> } {
  let workDir: string | undefined;
  const made: RecoverSetup[] = [];
  return {
    setup: async (name, sandboxArgs = []) => {
      workDir ??= mkdtempSync(join(tmpdir(), 'whsvc-recover-'));
      const setup = await recoverSetup(workDir, name, sandboxArgs);
      made.push(setup);
      return setup;
    },
    closeAll: async () => {
      await Promise.all(made.splice(0).map((setup) => setup.close()));
      if (workDir) rmSync(workDir, { recursive: true, force: true });
    },
  };
}

/** What a run printed on stdout, as JSON; it must have printed something. */
export const json = (result: CliResult) => {
  expect(result.stdout, result.stderr).not.toBe('');
  return JSON.parse(result.stdout);
};
