import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';

// The built `whsvc` as the end-to-end tests run it: once to the end (runCli), or left running (startWhsvc,
// startSandboxProcess, startListen) and waited on by what it writes, never by the time that passes.

export const WHSVC_BIN = fileURLToPath(new URL('../../bin/whsvc', import.meta.url));

/** Variables over this process's environment; `undefined` unsets one. */
export type Env = Record<string, string | undefined>;

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Env;
  /** What it reads on stdin; nothing otherwise. */
  input?: string;
  timeoutMs?: number;
}

/** Runs the built `whsvc` binary as a user would, with no TTY. */
export function runCli(args: string[], options: RunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WHSVC_BIN, ...args], {
      env: { ...process.env, NO_COLOR: '1', ...options.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`whsvc ${args.join(' ')} did not finish within ${options.timeoutMs ?? 30_000} ms\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    // A command that exits without reading its input (a usage error) closes the pipe: not the test's error.
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** whsvc as one user runs it: runCli with that user's environment under each run's own. */
export type Cli = (args: string[], options?: RunOptions) => Promise<CliResult>;

/** A Cli with `env` (a function: read at each run, for what a beforeAll sets) and the defaults given. */
export function cliWith(env: Env | (() => Env), defaults: Omit<RunOptions, 'env'> = {}): Cli {
  return (args, options = {}) => runCli(args, { ...defaults, ...options, env: { ...(typeof env === 'function' ? env() : env), ...options.env } });
}

/** whsvc as run by users who each have a config dir of their own, none logged in to start with (ownConfigEnv). */
export interface Users {
  (args: string[], configDir: string, options?: RunOptions): Promise<CliResult>;
  /** The one user of `configDir`. */
  as(configDir: string): Cli;
}

/** Users of the service at `baseUrl` (read at each run; undefined: the profile's, else the default address). */
export function usersOf(baseUrl: () => string | undefined, defaults: Omit<RunOptions, 'env'> = {}): Users {
  const users = (args: string[], configDir: string, options: RunOptions = {}) => cliWith(() => ownConfigEnv(configDir, baseUrl()), defaults)(args, options);
  return Object.assign(users, {
    as:
      (configDir: string): Cli =>
      (args, options) =>
        users(args, configDir, options),
  });
}

/**
 * The environment of a user with only a config dir: no client from this process's environment, no profile named, no
 * prompts (CI); the service at `baseUrl` when given.
 */
export function ownConfigEnv(configDir: string, baseUrl?: string): Env {
  return {
    WHSVC_CONFIG_DIR: configDir,
    WHSVC_BASE_URL: baseUrl,
    WHSVC_PROFILE: undefined,
    WHSVC_CLIENT_ID: undefined,
    WHSVC_CLIENT_SECRET: undefined,
    CI: 'true',
  };
}

export interface SandboxInfo {
  base_url: string;
  /** The inspector page: the base address, with ?token=… when the sandbox listens on a network address. */
  inspector_url: string;
  client_id: string;
  client_secret: string;
  readonly_client_id: string;
  readonly_client_secret: string;
  data_dir: string | null;
}

/** The environment of a user of a sandbox: its read-write client, the config kept in `configDir`, no prompts (CI). */
export function sandboxEnv(info: SandboxInfo, configDir: string): Record<string, string> {
  return {
    WHSVC_CONFIG_DIR: configDir,
    WHSVC_BASE_URL: info.base_url,
    WHSVC_CLIENT_ID: info.client_id,
    WHSVC_CLIENT_SECRET: info.client_secret,
    CI: 'true',
  };
}

/** `whsvc login --client-id ID --client-secret-stdin` (and `more`: --profile, --base-url…), the secret on stdin, run by `cli`. */
export function login(cli: Cli, clientId: string, clientSecret: string, more: string[] = []): Promise<CliResult> {
  return cli(['login', '--client-id', clientId, '--client-secret-stdin', ...more], { input: clientSecret });
}

/** What `webhooks create --json` prints: the secret itself, or where it was written (--secret-file). */
export interface CreatedWebhook {
  id: string;
  url: string;
  events: string[];
  active: boolean;
  signing_secret: string;
  signing_secret_file?: string;
  created_at: string;
}

/** `whsvc webhooks create --url URL --events EVENTS --json` and any more arguments, run by `cli`: the webhook made. */
export async function createWebhook(cli: Cli, url: string, events = 'invoice.paid', more: string[] = []): Promise<CreatedWebhook> {
  const created = await cli(['webhooks', 'create', '--url', url, '--events', events, '--json', ...more]);
  expect(created.code, created.stderr).toBe(0);
  return JSON.parse(created.stdout) as CreatedWebhook;
}

/** `whsvc sandbox trigger TYPE --json` (with --data), `times` times over, run by `cli`: the ids of the deliveries made. */
export async function trigger(cli: Cli, type = 'invoice.paid', options: { times?: number; data?: Record<string, unknown> } = {}): Promise<string[]> {
  const deliveries: string[] = [];
  for (let i = 0; i < (options.times ?? 1); i++) {
    const result = await cli(['sandbox', 'trigger', type, '--json', ...(options.data ? ['--data', JSON.stringify(options.data)] : [])]);
    expect(result.code, result.stderr).toBe(0);
    deliveries.push(...(JSON.parse(result.stdout) as { deliveries: string[] }).deliveries);
  }
  return deliveries;
}

/** The lines of a --json stream (NDJSON), each parsed. */
export const jsonLines = (text: string): any[] =>
  text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line));

/**
 * The deliveries `listen --json` printed: its lines after the first, which
 * is the address it listens at (`{"url": …}`), checked here.
 */
export function listenedDeliveries(stdout: string): any[] {
  const [first, ...deliveries] = jsonLines(stdout);
  if (first === undefined) return [];
  if (Object.keys(first).join() !== 'url' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(first.url))
    throw new Error(`listen --json did not start with its address: ${stdout.slice(0, 200)}`);
  return deliveries;
}

/** A whsvc process left running. */
export interface Running {
  child: ChildProcess;
  /** What it has written so far. */
  stdout: () => string;
  stderr: () => string;
  /** Its stdout so far as JSON lines (--json). */
  lines: () => any[];
  /** Its exit code (null: killed by a signal), once all it wrote is in. */
  exit: Promise<number | null>;
  /**
   * Resolves with what `check` returns once it returns something (neither undefined, null nor false), looked at
   * now and after each chunk the process writes; rejects, naming `what`, if it exits first (or, a bound on a hung
   * test, has not written it within `timeoutMs`).
   */
  until<T>(check: () => T | undefined | null | false, what: string, timeoutMs?: number): Promise<T>;
  /** Sends `signal` unless it has exited already; resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Every process the helpers start, so that what a failed test left running can be killed when its file ends. */
const started = new Set<ChildProcess>();

const running = (child: ChildProcess) => child.exitCode === null && child.signalCode === null;

/** Kills (SIGKILL) every process the helpers started that still runs: test/e2e-setup.ts does, after each file. */
export function killLeftovers(): void {
  for (const child of started) if (running(child)) child.kill('SIGKILL');
  started.clear();
}

/** Wraps a spawned process: its output kept, waited on by `until`. */
function watched(child: ChildProcess, name: string): Running {
  started.add(child);
  let stdout = '';
  let stderr = '';
  const checks = new Set<() => void>();
  // Its exit code once its pipes are drained too ('close', after 'exit'): all it wrote is in by then.
  const exit = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
  const look = () => {
    for (const check of [...checks]) check();
  };
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk;
    look();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk;
    look();
  });
  const self: Running = {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    lines: () => jsonLines(stdout),
    exit,
    until: (check, what, timeoutMs = 60_000) =>
      new Promise((resolve, reject) => {
        const finish = (outcome: () => void) => {
          checks.delete(attempt);
          clearTimeout(timer);
          outcome();
        };
        const attempt = () => {
          try {
            const value = check();
            if (value !== undefined && value !== null && value !== false) finish(() => resolve(value));
          } catch (error) {
            finish(() => reject(error));
          }
        };
        const timer = setTimeout(() => finish(() => reject(new Error(`${name} never wrote ${what} within ${timeoutMs} ms\n${stderr}`))), timeoutMs);
        checks.add(attempt);
        void exit.then(() => {
          if (!checks.has(attempt)) return;
          attempt();
          if (checks.has(attempt))
            finish(() => reject(new Error(`${name} exited with ${child.exitCode ?? child.signalCode} before it wrote ${what}: ${stderr}`)));
        });
        attempt();
      }),
    stop: async (signal = 'SIGINT') => {
      if (running(child)) child.kill(signal);
      return exit;
    },
  };
  return self;
}

/** Starts `whsvc <args>` (with `env` over this process's) and returns at once. */
export function startWhsvc(
  args: string[],
  options: { env?: Env /** What it reads on stdin, ended then; without it, stdin stays open. */; input?: string } = {},
): Running {
  const child = spawn(process.execPath, [WHSVC_BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...options.env } });
  // A command that exits without reading its input closes the pipe: not the test's error.
  child.stdin.on('error', () => {});
  if (options.input !== undefined) child.stdin.end(options.input);
  return watched(child, `whsvc ${args.join(' ')}`);
}

/** Starts a program of another kind (an example receiver of examples/, say), with `env` over this process's; at once. */
export function startProgram(command: string, args: string[], env: Env = {}): Running {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  return watched(child, [command, ...args].join(' '));
}

/**
 * Starts `whsvc <args>` and resolves once its stderr matches `ready` (with
 * the match); rejects, naming `what`, if it exits before.
 */
export async function startWhsvcUntil(
  args: string[],
  ready: RegExp,
  what: string,
  env: Env = {},
  /** What it reads on stdin, ended then; without it, stdin stays open. */
  input?: string,
): Promise<Running & { ready: RegExpExecArray }> {
  const whsvc = startWhsvc(args, { env, ...(input === undefined ? {} : { input }) });
  const match = await whsvc.until(() => ready.exec(whsvc.stderr()), `${what}'s ready line (${ready})`);
  return { ...whsvc, ready: match };
}

export interface Listener extends Running {
  url: string;
  /** With --json: the deliveries it printed so far (listenedDeliveries). */
  deliveries: () => any[];
}

/** Starts `whsvc listen --port 0 …` and waits for its ready line. */
export async function startListen(args: string[], env: Env = {}): Promise<Listener> {
  const running = await startWhsvcUntil(['listen', '--port', '0', ...args], /ready at (http:\/\/\S+)/, 'listen', env);
  return { ...running, url: running.ready[1]!, deliveries: () => listenedDeliveries(running.stdout()) };
}

/** Starts `whsvc deliveries tail …` and waits until it follows (its "following" line). */
export function startTail(args: string[], env: Env): Promise<Running> {
  return startWhsvcUntil(['deliveries', 'tail', ...args], /^whsvc: following /m, 'tail', env);
}

export interface SandboxProcess {
  info: SandboxInfo;
  child: ChildProcess;
  stderr(): string;
  /** Waits on what it writes (its log, on stderr), as Running.until. */
  until: Running['until'];
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `whsvc sandbox start --port 0 --json …` (with `env` over this process's) and waits for its ready line. */
export async function startSandboxProcess(
  args: string[] = [],
  timeoutMs = 30_000,
  env: Record<string, string> = {},
  /** The open-file limit to run it under (`ulimit -n`), when not this process's. */
  fileLimit?: number,
): Promise<SandboxProcess> {
  const command = [process.execPath, WHSVC_BIN, 'sandbox', 'start', '--port', '0', '--json', ...args];
  const [file, ...argv] = fileLimit === undefined ? command : ['bash', '-c', `ulimit -n ${fileLimit} && exec "$@"`, 'bash', ...command];
  const child = spawn(file!, argv, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const sandbox = watched(child, 'whsvc sandbox start');
  // Ready once both the JSON line (stdout) and the ready line (stderr) are in: two pipes, either may come first.
  const json = await sandbox
    .until(() => sandbox.stderr().includes('ready at') && /^.*\n/.exec(sandbox.stdout())?.[0], 'its JSON line and its ready line', timeoutMs)
    .catch((error: unknown) => {
      child.kill('SIGKILL');
      throw error;
    });
  return {
    info: JSON.parse(json) as SandboxInfo,
    child,
    stderr: sandbox.stderr,
    until: sandbox.until,
    stop: async (signal = 'SIGTERM') => sandbox.stop(signal),
  };
}
