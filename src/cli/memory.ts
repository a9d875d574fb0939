import { setFlagsFromString } from 'node:v8';

/**
 * For the commands that make thousands of requests in one process (recover's
 * re-sends, tail's polls). V8 grows its young generation and its old space to
 * the allocation rate, and keeps them: recover of 10,000 failed deliveries
 * peaked at 202 MB of RSS while its live heap stayed under 10 MB (73 MB for 10
 * deliveries). With the young generation kept at its starting size and the old
 * space grown in small steps instead of by a factor V8 picks, the same run peaks at
 * about 100 MB (the README's benchmarks). Both flags are numbers V8 reads each
 * time it sizes the heap, so setting them once the process runs takes effect;
 * they change when garbage is collected, never what is kept.
 *
 * Call it once the code the rest of the run needs is loaded: V8's flags are
 * part of what a compiled-code cache is checked against, so a module first
 * compiled after this would have its entry in Node's compile cache rejected,
 * and rewritten for these flags, and rejected again by the next command.
 */
export function keepHeapSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1');
  setFlagsFromString('--heap-growing-percent=1');
}
