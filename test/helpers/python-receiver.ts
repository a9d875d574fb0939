import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// The receiver of test/fixtures/python-receiver.py, started as a process of its own on 127.0.0.1 (PORT=0), waited on
// by its "listening on" line, and stopped by its own process id.

/** The bug planted in it (its MISTAKE), or none. */
export type PythonMistake = 'json.dumps' | 'newline' | 'decoded' | 'b64decode' | undefined;

export interface PythonReceiver {
  url: string;
  close(): Promise<void>;
}

const SCRIPT = fileURLToPath(new URL('../fixtures/python-receiver.py', import.meta.url));

/** The receivers started and not closed yet, so that a failed test's are closed when its file ends. */
const running = new Set<PythonReceiver>();

export async function closeLeftoverPythonReceivers(): Promise<void> {
  await Promise.all([...running].map((receiver) => receiver.close()));
}

/** Starts the Python receiver with the secret in `secretFile`, with `mistake` planted; resolves once it listens. */
export function startPythonReceiver(secretFile: string, mistake?: PythonMistake): Promise<PythonReceiver> {
  const child = spawn('python3', [SCRIPT], {
    env: { ...process.env, PORT: '0', SECRET_FILE: secretFile, MISTAKE: mistake ?? '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`python-receiver.py ended (${code}) before it listened: ${stderr}`)));
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      const url = /^listening on (http:\/\/\S+)$/m.exec(stdout)?.[1];
      if (url === undefined) return;
      child.stdout.removeAllListeners('data');
      const receiver: PythonReceiver = {
        url,
        async close() {
          running.delete(receiver);
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          await exited;
        },
      };
      running.add(receiver);
      resolve(receiver);
    });
  });
}
