import { setFlagsFromString } from 'node:v8';

/**
 * For the commands that make thousands of requests in one process (recover's
 * re-sends, tail's polls): memory that stays near what a short run needs. By
 * default V8 sizes the heap for speed: it grows the young generation and the
 * old space with the allocation rate, and it compiles the hot functions again
 * with its optimizing compilers, whose working memory, for several functions
 * at a time, was the largest part of a long run's peak. recover of 10,000
 * failed deliveries peaked at 202 MB of RSS while its live heap stayed under
 * 10 MB (73 MB for 10 deliveries); docs/benchmarks.md gives the figures
 * now. Such a run spends its time waiting for the service's answers, not
 * running this process's code: it takes as long without the optimizing
 * compilers, for about 3% more CPU.
 *
 * Each flag is read by V8 when it next sizes the heap or picks a function to
 * optimize, so setting them once the process runs takes effect; they change
 * when garbage is collected and how fast code runs, never what is kept.
 *
 * Call it once the code the rest of the run needs is loaded: V8's flags are
 * part of what a compiled-code cache is checked against, so a module first
 * compiled after this would have its entry in Node's compile cache rejected,
 * and rewritten for these flags, and rejected again by the next command.
 */
export function keepHeapSmall(): void {
  // The young generation stays at its starting size.
  setFlagsFromString('--semi-space-growth-factor=1');
  // The old space grows 1% past what was live after the last full collection, and at least
  // 2 MB (V8's step when it optimizes for size) instead of 8.
  setFlagsFromString('--heap-growing-percent=1');
  setFlagsFromString('--optimize-for-size');
  // Baseline code only (Ignition and Sparkplug): no Maglev or TurboFan compilations from here on.
  setFlagsFromString('--no-maglev');
  setFlagsFromString('--no-turbofan');
}
