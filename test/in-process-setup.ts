import { afterAll } from 'vitest';
import { killLeftovers } from './helpers/cli.js';
import { stopLeftoversInProcess } from './helpers/in-process.js';
import { closeLeftoverReceivers } from './helpers/receiver.js';

// Run before each integration file (vitest.config.ts, setupFiles): the layer's files share a worker's process, so
// whatever a file's tests left going in it (a listen, a tail, a sandbox, a receiver, a program started) is stopped when the
// file ends.
// Receivers first: a sandbox stops once its sends under way end, and a receiver holding one ends it by closing.
afterAll(async () => {
  killLeftovers();
  await closeLeftoverReceivers();
  await stopLeftoversInProcess();
});
