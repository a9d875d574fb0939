import { afterAll } from 'vitest';
import { stopLeftovers } from './helpers/in-process.js';
import { closeLeftoverReceivers } from './helpers/receiver.js';

// Run before each integration file (vitest.config.ts, setupFiles): whatever its tests started in-process and a failed
// test left going (a listen, a tail, a sandbox) is stopped when the file ends, and its receivers closed.
afterAll(async () => {
  await stopLeftovers();
  await closeLeftoverReceivers();
});
