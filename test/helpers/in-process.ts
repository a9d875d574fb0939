import { EventEmitter } from 'node:events';
import type { InputStream, OutputStream } from '../../src/cli/deps.js';
import type { Host, StopSignal } from '../../src/cli/host.js';
import { runCli } from '../../src/run-cli.js';
import { jsonLines, listenedDeliveries, ownConfigEnv, type Cli, type CliResult, type Env, type RunOptions, type SandboxInfo, type Users } from './cli.js';

// whsvc run in the test's own process: runCli with a host of the test's (its streams collected, its environment, its
// signals an emitter), for what a user types and reads, at the cost of a function call instead of a Node start. A
// process of its own (cli.ts) is only for what only a process shows: signals, terminals, the launcher, devices, kill -9.

/** Stdout or stderr, collected; `onWrite` is told of each chunk. */
class Collected implements OutputStream {
  text = '';
  onWrite: () => void = () => {};
  constructor(
    public isTTY = false,
    public columns?: number,
  ) {}
  write(chunk: string | Uint8Array): boolean {
    this.text += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    this.onWrite();
    return true;
  }
}

/** A stdin that gives `input` and ends; with no input given, one that ends at once (as `< /dev/null`). */
function stdinOf(input: string | undefined): InputStream {
  return {
    isTTY: false,
    async *[Symbol.asyncIterator]() {
      if (input) yield Buffer.from(input, 'utf8');
    },
  };
}

/** The environment of a run: this process's, with no colour (as a pipe gets none), and the test's over it (undefined unsets). */
function environment(env: Env = {}): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1' };
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete merged[name];
    else merged[name] = value;
  }
  return merged;
}

export interface InProcessOptions extends RunOptions {
  /** The terminal flag and width of stdout and stderr; a pipe by default. */
  terminal?: { columns: number };
}

export function hostFor(options: InProcessOptions): { host: Host; stdout: Collected; stderr: Collected; signals: EventEmitter } {
  const stdout = new Collected(Boolean(options.terminal), options.terminal?.columns);
  const stderr = new Collected(Boolean(options.terminal), options.terminal?.columns);
  const signals = new EventEmitter();
  const host: Host = { stdin: stdinOf(options.input), stdout, stderr, env: environment(options.env), signals, now: Date.now };
  return { host, stdout, stderr, signals };
}

/** Runs `whsvc <args>` in-process to its end: the same result as a process's (cli.ts runCli), signal always null. */
export async function runInProcess(args: string[], options: InProcessOptions = {}): Promise<CliResult> {
  const { host, stdout, stderr } = hostFor(options);
  const code = await runCli(args, host);
  return { code, signal: null, stdout: stdout.text, stderr: stderr.text };
}

/** A Cli that runs in-process, with `env` (a function: read at each run, for what a beforeAll sets) and the defaults given. */
export function inProcessCliWith(env: Env | (() => Env), defaults: Omit<InProcessOptions, 'env'> = {}): Cli {
  return (args, options = {}) => runInProcess(args, { ...defaults, ...options, env: { ...(typeof env === 'function' ? env() : env), ...options.env } });
}

/** A run left going in-process (listen, tail, the sandbox), waited on by what it writes, stopped by a signal of its host. */
export interface RunningInProcess {
  stdout(): string;
  stderr(): string;
  lines(): any[];
  /** Its exit code, once it ends. */
  exit: Promise<number>;
  /** Resolves with what `check` returns once it returns something, looked at now and after each write; rejects if the run ends first. */
  until<T>(check: () => T | undefined | null | false, what: string): Promise<T>;
  /** Sends the signal to the run (SIGINT as Ctrl-C, SIGTERM) and resolves with its exit code. */
  stop(signal?: StopSignal): Promise<number>;
  /** How many listeners are on the host's Ctrl-C and SIGTERM now (a run that ended must leave none). */
  signalListeners(): number;
}

/** The runs started in-process that have not ended yet, so that what a failed test left going is stopped when its file ends. */
const going = new Set<RunningInProcess>();

/**
 * Stops every run still going in-process and waits for their ends: test/in-process-setup.ts does, after each file.
 * SIGTERM first; a bulk command (recover, replay) stops at Ctrl-C only, so one still going a moment later gets Ctrl-C
 * twice (the second ends any run). The moment is a cleanup's bound, never a test's assertion.
 */
export async function stopLeftoversInProcess(): Promise<void> {
  const left = [...going];
  const stopped = left.map((run) => run.stop('SIGTERM'));
  await Promise.race([Promise.all(stopped), new Promise((resolve) => setTimeout(resolve, 500))]);
  for (const run of going) for (const signal of ['SIGINT', 'SIGINT'] as const) void run.stop(signal);
  await Promise.all(left.map((run) => run.exit.catch(() => undefined)));
}

export function startInProcess(args: string[], options: InProcessOptions = {}): RunningInProcess {
  const { host, stdout, stderr, signals } = hostFor(options);
  const checks = new Set<() => void>();
  const look = () => {
    for (const check of [...checks]) check();
  };
  stdout.onWrite = look;
  stderr.onWrite = look;
  let ended = false;
  const exit = runCli(args, host).finally(() => {
    ended = true;
    look();
  });
  const name = `whsvc ${args.join(' ')}`;
  const run: RunningInProcess = {
    stdout: () => stdout.text,
    stderr: () => stderr.text,
    lines: () => jsonLines(stdout.text),
    exit,
    until: (check, what) =>
      new Promise((resolve, reject) => {
        const attempt = () => {
          try {
            const value = check();
            if (value !== undefined && value !== null && value !== false) {
              checks.delete(attempt);
              resolve(value);
            } else if (ended) {
              checks.delete(attempt);
              reject(new Error(`${name} ended before it wrote ${what}: ${stderr.text}`));
            }
          } catch (error) {
            checks.delete(attempt);
            reject(error);
          }
        };
        checks.add(attempt);
        attempt();
      }),
    stop: async (signal = 'SIGINT') => {
      if (!ended) signals.emit(signal, signal);
      return exit;
    },
    signalListeners: () => signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM'),
  };
  going.add(run);
  const gone = () => going.delete(run);
  exit.then(gone, gone);
  return run;
}

/** whsvc in-process as run by users who each have a config dir of their own (cli.ts usersOf, without a process). */
export function usersInProcess(baseUrl: () => string | undefined, defaults: Omit<InProcessOptions, 'env'> = {}): Users {
  const users = (args: string[], configDir: string, options: RunOptions = {}) =>
    inProcessCliWith(() => ownConfigEnv(configDir, baseUrl()), defaults)(args, options);
  return Object.assign(users, {
    as:
      (configDir: string): Cli =>
      (args, options) =>
        users(args, configDir, options),
  });
}

export interface SandboxInProcess {
  info: SandboxInfo;
  stderr(): string;
  until: RunningInProcess['until'];
  /** Stops it as SIGTERM does (the default) or Ctrl-C, and resolves with its exit code. */
  stop(signal?: StopSignal): Promise<number>;
}

/** `whsvc sandbox start --port 0 --json …` run in-process, once it is ready (its JSON line on stdout and its ready line). */
export async function startSandboxInProcess(args: string[] = [], options: InProcessOptions = {}): Promise<SandboxInProcess> {
  const sandbox = startInProcess(['sandbox', 'start', '--port', '0', '--json', ...args], options);
  const json = await sandbox.until(() => sandbox.stderr().includes('ready at') && /^.*\n/.exec(sandbox.stdout())?.[0], 'its JSON line and its ready line');
  return { info: JSON.parse(json) as SandboxInfo, stderr: sandbox.stderr, until: sandbox.until, stop: (signal = 'SIGTERM') => sandbox.stop(signal) };
}

export interface ListenerInProcess extends RunningInProcess {
  url: string;
  /** With --json: the deliveries it printed so far (listenedDeliveries). */
  deliveries: () => any[];
}

/** `whsvc listen --port 0 …` in-process, once its ready line is out. */
export async function startListenInProcess(args: string[], options: InProcessOptions = {}): Promise<ListenerInProcess> {
  const listen = startInProcess(['listen', '--port', '0', ...args], options);
  const ready = await listen.until(() => /ready at (http:\/\/\S+)/.exec(listen.stderr()), "listen's ready line");
  return { ...listen, url: ready[1]!, deliveries: () => listenedDeliveries(listen.stdout()) };
}

/** `whsvc deliveries tail …` in-process, once it follows (its "following" line). */
export async function startTailInProcess(args: string[], options: InProcessOptions = {}): Promise<RunningInProcess> {
  const tail = startInProcess(['deliveries', 'tail', ...args], options);
  await tail.until(() => /^whsvc: following /m.test(tail.stderr()), "tail's following line");
  return tail;
}
