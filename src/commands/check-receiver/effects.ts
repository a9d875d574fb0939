import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { SecretMask } from '../../api/redact.js';
import { holdsSigningSecret } from '../../cli/credentials.js';
import { namesCredential } from '../../protocol/credential-names.js';
import { usageError } from '../../cli/errors.js';
import { deliveryHeaderNames } from '../../protocol/headers.js';
import { quoted, sanitize } from '../../render/text.js';
import { bytesText, elapsed } from '../../render/words.js';
import type { Verdict } from './types.js';

/**
 * check-receiver --effects: a command of the user's whose output changes when the app acts on a delivery (a row
 * count), run by the shell before and after check 7 sends a delivery again. Over HTTP a second effect cannot be seen;
 * the probe sees it: output that changes after the repeat means the app acted twice.
 */

/** What one run of the probe gave: its output, or why it gave none, in words. */
export type ProbeRun = { output: string } | { failure: string };

/** What the probe may cost: how long it may take, how much of its output is read, and its environment. */
export interface ProbeLimits {
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  maxBytes: number;
}

/** Runs a probe: `sh -c COMMAND` by default (runInShell); unit tests pass one of their own. */
export type ProbeRunner = (command: string, limits: ProbeLimits) => Promise<ProbeRun>;

/** The most of the probe's output read: a count, or a few lines, is what it is for. */
export const PROBE_OUTPUT_BYTES = 4096;
/** How long one run of the probe may take: a query of the app's store takes milliseconds. */
export const PROBE_TIMEOUT_MS = 10_000;
/** How long the probe is read again, at most, for the first send's effect to show: an app may act after it answers. */
export const EFFECT_SETTLE_MS = 5_000;
/** How long, at the least, the probe is watched after the repeat for a second effect (twice as long as the first took, when longer). */
const SECOND_EFFECT_MIN_MS = 500;
/** The wait between two reads of the probe. */
const PROBE_INTERVAL_MS = 100;

/** How long, at most, the probe's output is read after sh exits, while a child it left behind holds a pipe open. */
const DRAIN_MS = 100;

/**
 * The probe run by `sh -c`, no stdin, its output read up to `maxBytes`, stopped past `timeoutMs`. It ends when sh
 * exits, once what it wrote is read: a child it leaves in the background may hold its stdout open for as long as it
 * runs. Whatever the shell started is stopped at the end (its process group), and the pipes are let go, so that
 * nothing it left keeps whsvc running.
 */
export const runInShell: ProbeRunner = (command, { env, timeoutMs, maxBytes }) =>
  new Promise((resolve) => {
    // Its own process group, so that what the shell starts is stopped with it.
    const child = spawn('sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const pipesClosed = Promise.all([once(child.stdout, 'close'), once(child.stderr, 'close')]);
    const output: Buffer[] = [];
    let bytes = 0;
    let errors = '';
    let done = false;
    let drain: NodeJS.Timeout | undefined;
    const finish = (run: ProbeRun) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      clearTimeout(drain);
      stopGroup(child.pid);
      // Resolved once the pipes are closed: nothing of the probe is left open in whsvc then.
      child.stdout.destroy();
      child.stderr.destroy();
      void pipesClosed.then(() => resolve(run));
    };
    const timer = setTimeout(() => finish({ failure: `it did not end within ${elapsed(timeoutMs)}` }), timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (bytes > maxBytes) finish({ failure: `it printed more than ${bytesText(maxBytes)}: a count, or a few lines, is what it is for` });
      else output.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      if (errors.length < 400) errors += chunk.toString('utf8');
    });
    child.on('error', (error) => finish({ failure: `sh could not be started: ${error.message}` }));
    child.on('exit', (code, signal) => {
      const ran = (): ProbeRun => (code === 0 ? { output: Buffer.concat(output).toString('utf8') } : { failure: exitFailure(code, signal, errors) });
      // All sh wrote is read once both pipes end. A child it left behind may hold one open: then DRAIN_MS, and one more
      // turn of the event loop, whose poll reads what is in the pipe (on a loaded machine the timer can come first).
      const ended = () => child.stdout.readableEnded && child.stderr.readableEnded && finish(ran());
      child.stdout.once('end', ended);
      child.stderr.once('end', ended);
      ended();
      drain = setTimeout(() => setImmediate(() => finish(ran())), DRAIN_MS);
    });
  });

/** Why a probe that exited other than 0 gave no output: its exit code or signal, and the first line it wrote on stderr. */
function exitFailure(code: number | null, signal: NodeJS.Signals | null, errors: string): string {
  const said = sanitize(errors.trim().split('\n')[0] ?? '').slice(0, 200);
  const how = code === 127 ? 'its command was not found (exit 127)' : code !== null ? `it exited ${code}` : `it was ended by ${signal}`;
  return said ? `${how}: ${said}` : how;
}

/** Stops a probe's process group: the shell's, and what it left running, which outlives it. */
function stopGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // None of it is left.
  }
}

/**
 * The environment the probe runs in: whsvc's, less whsvc's own credentials: its variables that name one
 * (WHSVC_CLIENT_SECRET), any value that holds one (a signing secret, one of `secrets`, under any name), and a proxy's
 * with a password. The user's own (PGPASSWORD, DATABASE_URL) stay: the probe is the user's command, reading the app's
 * state as it would from the user's shell, which needs them.
 */
export function probeEnvironment(env: NodeJS.ProcessEnv, secrets: readonly string[]): NodeJS.ProcessEnv {
  // Held as every secret of a run is (--jq's $ENV tells them the same way): in any form, none too short to tell apart.
  const held = new SecretMask();
  for (const secret of secrets) held.add(secret);
  const holdsCredential = (name: string, value: string) =>
    (/^WHSVC_/i.test(name) && namesCredential(name)) ||
    holdsSigningSecret(value) ||
    held.holds(value) ||
    (/_proxy$/i.test(name) && /\/\/[^/@]*:[^/@]*@/.test(value));
  return Object.fromEntries(Object.entries(env).filter(([name, value]) => value !== undefined && !holdsCredential(name, value)));
}

/** What the probe read around check 7's deliveries, and what it means. */
export interface EffectsSeen {
  /**
   * acted_once: it changed after the first send, not after the repeat; acted_twice: after both; not_seen: not after
   * the first; failed; not_run: check 7 did not get as far as reading it after both sends (the battery stopped).
   */
  result: 'acted_once' | 'acted_twice' | 'not_seen' | 'failed' | 'not_run';
  before: string | null;
  afterFirst: string | null;
  afterRepeat: string | null;
  /** Why the probe gave no output, when it failed. */
  error: string | null;
}

/** How the probe is run and waited on. */
export interface ProbeDeps {
  run: ProbeRunner;
  limits: ProbeLimits;
  now: () => number;
  /** Waits `ms` between two reads. */
  pause: (ms: number) => Promise<void>;
}

/** The command run once before anything is sent: one that fails is a bad flag (exit 2), said before any delivery. */
export async function tryProbe(command: string, deps: ProbeDeps): Promise<void> {
  const run = await deps.run(command, deps.limits);
  if ('failure' in run) {
    throw usageError(
      `--effects: ${run.failure}`,
      "it is run by sh -c, before and after check 7 sends a delivery again; it must exit 0 and print what changes when your app acts on a delivery (a row count: sqlite3 app.db 'select count(*) from payments')",
    );
  }
}

/**
 * The probe read around check 7: before its first send, after that send once the app's effect shows (read again
 * for up to EFFECT_SETTLE_MS, for an app that acts after it answers), and after the repeat, watched twice as long
 * as the first effect took to show (SECOND_EFFECT_MIN_MS at the least) or until it changes.
 */
export class EffectsWatch {
  private before: string | null = null;
  private afterFirst: string | null = null;
  private afterRepeat: string | null = null;
  private error: string | null = null;
  private firstShownMs = 0;

  constructor(
    private readonly command: string,
    private readonly deps: ProbeDeps,
  ) {}

  /** Read before the first send. */
  async readBefore(): Promise<void> {
    this.before = await this.read();
  }

  /** Read after the first send, until it differs from before or the settling time has passed. */
  async readAfterFirst(): Promise<void> {
    if (this.before === null) return;
    const started = this.deps.now();
    this.afterFirst = await this.readUntilChanged(this.before, EFFECT_SETTLE_MS);
    this.firstShownMs = this.deps.now() - started;
  }

  /** Read after the repeat, until it differs from after the first send or the watch is over. */
  async readAfterRepeat(): Promise<void> {
    if (this.afterFirst === null || this.afterFirst === this.before) return;
    const watchMs = Math.min(EFFECT_SETTLE_MS, Math.max(SECOND_EFFECT_MIN_MS, 2 * this.firstShownMs));
    this.afterRepeat = await this.readUntilChanged(this.afterFirst, watchMs);
  }

  /** What was read, and what it means. */
  seen(): EffectsSeen {
    const { before, afterFirst, afterRepeat, error } = this;
    return { result: this.result(), before, afterFirst, afterRepeat, error };
  }

  private result(): EffectsSeen['result'] {
    if (this.error !== null) return 'failed';
    if (this.afterFirst === null) return 'not_run';
    if (this.afterFirst === this.before) return 'not_seen';
    if (this.afterRepeat === null) return 'not_run';
    return this.afterRepeat === this.afterFirst ? 'acted_once' : 'acted_twice';
  }

  private async readUntilChanged(from: string, forMs: number): Promise<string | null> {
    const started = this.deps.now();
    for (;;) {
      const output = await this.read();
      if (output === null || output !== from || this.deps.now() - started >= forMs) return output;
      await this.deps.pause(PROBE_INTERVAL_MS);
    }
  }

  private async read(): Promise<string | null> {
    const run = await this.deps.run(this.command, this.deps.limits);
    if ('output' in run) return run.output;
    this.error = run.failure;
    return null;
  }
}

/** An output in a summary when it is short and on one line (`3`), else nothing: the document has it whole. */
const shown = (output: string | null) => {
  const text = (output ?? '').trim();
  return text !== '' && text.length <= 24 && !text.includes('\n') ? quoted(text) : undefined;
};

/**
 * Check 7's verdict with what the probe saw: a receiver that answered the repeat 2xx and acted on it again fails; one
 * whose effect the probe could not see (or that the probe could not read) cannot be judged: inconclusive, saying why.
 * A verdict already failed over HTTP stands.
 */
export function withEffects(verdict: Verdict, seen: EffectsSeen, event: string, platformName: string): Verdict {
  if (verdict.result !== 'pass' || seen.result === 'not_run') return verdict;
  const [before, first, repeat] = [shown(seen.before), shown(seen.afterFirst), shown(seen.afterRepeat)];
  switch (seen.result) {
    case 'acted_once':
      return {
        ...verdict,
        summary: `${verdict.summary}; the --effects output changed after the first send${before && first ? ` (${before} → ${first})` : ''}, not after the repeat`,
      };
    case 'acted_twice':
      return {
        result: 'fail',
        seen: true,
        summary: `${verdict.summary}, and the --effects output changed after each${before && first && repeat ? ` (${before} → ${first} → ${repeat})` : ''}: it acted twice`,
        cause:
          'it does the work again for a delivery it has processed: the service sends a delivery again when it did not get the answer, and a repeat then pays, ships or writes twice',
        fix: `keep the ids of the deliveries it has processed (${deliveryHeaderNames(platformName).deliveryId}), and answer one it has seen 2xx without doing the work again`,
      };
    case 'not_seen':
      return {
        result: 'inconclusive',
        summary: `${verdict.summary}; the --effects output did not change after the first send${before ? ` (${before})` : ''}, so a second effect cannot be judged`,
        cause: `the command does not see what the app does with a delivery, the app does nothing for ${event}, or it acts more than ${elapsed(EFFECT_SETTLE_MS)} after it answers`,
        fix: 'give --effects a command whose output changes when the app acts on a delivery (a count of the rows it writes), and --event a type it acts on',
      };
    case 'failed':
      return {
        result: 'inconclusive',
        summary: `${verdict.summary}; the --effects command failed, so a second effect cannot be judged: ${seen.error}`,
        cause: 'the command that reads the effect failed while check 7 ran',
        fix: 'run the command yourself while the app runs: it must exit 0 and print what changes when the app acts on a delivery',
      };
  }
}
