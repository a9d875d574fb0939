import { afterAll } from 'vitest';
import { killLeftovers } from './helpers/cli.js';
import { closeLeftoverReceivers } from './helpers/receiver.js';

// Run before each end-to-end file (vitest.config.ts, setupFiles): whatever its tests started and a failed test left
// running (a listen, a tail, a sandbox) is killed when the file ends, and its receivers closed.
afterAll(async () => {
  killLeftovers();
  await closeLeftoverReceivers();
});
