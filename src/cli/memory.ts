import { setFlagsFromString } from 'node:v8';

/**
 * For the commands that make thousands of requests in one process (recover,
 * tail, health). V8 grows its young generation and its old space to the
 * allocation rate, and keeps them: recover of 10,000 failed deliveries peaked
 * at 202 MB of RSS while its live heap stayed under 10 MB (73 MB for 10
 * deliveries). With the young generation kept at its starting size and the
 * old space grown by 1% at a time instead of V8's own factor, the same run
 * peaks at about 96 MB (the README's benchmarks). Both flags are numbers V8
 * reads each time it sizes the heap, so setting them once the process runs
 * takes effect; they change when garbage is collected, never what is kept.
 */
export function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=1');
}
