import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const WHSVC_BIN = fileURLToPath(new URL('../../bin/whsvc', import.meta.url));

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs the built `whsvc` binary as a user would, with no TTY. */
export function runCli(args: string[], options: { env?: Record<string, string | undefined>; input?: string; timeoutMs?: number } = {}): Promise<CliResult> {
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
    child.stdin.end(options.input ?? '');
  });
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

/** The environment that points whsvc at a sandbox with its read-write client, its config kept in `configDir`. */
export function sandboxEnv(info: SandboxInfo, configDir: string): Record<string, string> {
  return { WHSVC_CONFIG_DIR: configDir, WHSVC_BASE_URL: info.base_url, WHSVC_CLIENT_ID: info.client_id, WHSVC_CLIENT_SECRET: info.client_secret };
}

export interface SandboxProcess {
  info: SandboxInfo;
  child: ChildProcess;
  stderr(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `whsvc sandbox start --port 0 --json …` (with `env` over this process's) and waits for its ready line. */
export function startSandboxProcess(
  args: string[] = [],
  timeoutMs = 30_000,
  env: Record<string, string> = {},
  /** The open-file limit to run it under (`ulimit -n`), when not this process's. */
  fileLimit?: number,
): Promise<SandboxProcess> {
  return new Promise((resolve, reject) => {
    const command = [process.execPath, WHSVC_BIN, 'sandbox', 'start', '--port', '0', '--json', ...args];
    const [file, ...argv] = fileLimit === undefined ? command : ['bash', '-c', `ulimit -n ${fileLimit} && exec "$@"`, 'bash', ...command];
    const child = spawn(file!, argv, {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sandbox not ready within ${timeoutMs} ms: ${stderr}`));
    }, timeoutMs);
    let ready = false;
    // Ready once both the JSON line (stdout) and the ready line (stderr) are in: two pipes, either may come first.
    const checkReady = () => {
      const newline = stdout.indexOf('\n');
      if (ready || newline < 0 || !stderr.includes('ready at')) return;
      ready = true;
      clearTimeout(timer);
      resolve({
        info: JSON.parse(stdout.slice(0, newline)) as SandboxInfo,
        child,
        stderr: () => stderr,
        stop: async (signal = 'SIGTERM') => {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          return exited;
        },
      });
    };
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk;
      checkReady();
    });
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk;
      checkReady();
    });
    void exited.then((code) => {
      if (ready) return;
      clearTimeout(timer);
      reject(new Error(`sandbox exited with ${code} before it was ready: ${stderr}`));
    });
  });
}

/** A whsvc process left running: its output so far, and its exit. */
export interface Running {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<number | null>;
}

/**
 * Starts `whsvc <args>` and resolves once its stderr matches `ready` (with
 * the match); rejects, naming `what`, if it exits before.
 */
export function startWhsvcUntil(
  args: string[],
  ready: RegExp,
  what: string,
  env: Record<string, string> = {},
  /** What it reads on stdin, ended then; without it, stdin stays open. */
  input?: string,
): Promise<Running & { ready: RegExpExecArray }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WHSVC_BIN, ...args], { env: { ...process.env, NO_COLOR: '1', ...env } });
    let stdout = '';
    let stderr = '';
    const exit = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => {
      stderr += c;
      const match = ready.exec(stderr);
      if (match) resolve({ child, stdout: () => stdout, stderr: () => stderr, exit, ready: match });
    });
    void exit.then((code) => reject(new Error(`${what} exited with ${code} before it was ready: ${stderr}`)));
    if (input !== undefined) child.stdin.end(input);
  });
}

export interface Listener extends Running {
  url: string;
}

/** Starts `whsvc listen --port 0 …` and waits for its ready line. */
export async function startListen(args: string[], env: Record<string, string> = {}): Promise<Listener> {
  const running = await startWhsvcUntil(['listen', '--port', '0', ...args], /ready at (http:\/\/\S+)/, 'listen', env);
  return { ...running, url: running.ready[1]! };
}

/**
 * The deliveries `listen --json` printed: its lines after the first, which
 * is the address it listens at (`{"url": …}`), checked here.
 */
export function listenedDeliveries(stdout: string): Array<Record<string, any>> {
  const [first, ...deliveries] = stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  if (first === undefined) return [];
  if (Object.keys(first).join() !== 'url' || !/^http:\/\/127\.0\.0\.1:\d+$/.test(first.url))
    throw new Error(`listen --json did not start with its address: ${stdout.slice(0, 200)}`);
  return deliveries;
}
