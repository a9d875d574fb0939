import { type ListenDeps, type ListenOptions, run } from '../../src/commands/listen/listen.js';
import { Collector, fakeStdin } from './fake-deps.js';
import { PrintedJson } from '../../src/cli/json-output.js';

/** A stdout or stderr in memory that a test can wait on: looked at again after each write. */
export class WatchedOutput extends Collector {
  private readonly looks = new Set<() => void>();

  override write(chunk: string): boolean {
    super.write(chunk);
    for (const look of [...this.looks]) look();
    return true;
  }

  /** Resolves with what `check` returns of the text once it returns something (neither undefined, null nor false). */
  until<T>(check: (text: string) => T | undefined | null | false): Promise<T> {
    return new Promise((resolve) => {
      const look = () => {
        const value = check(this.text);
        if (value === undefined || value === null || value === false) return;
        this.looks.delete(look);
        resolve(value);
      };
      this.looks.add(look);
      look();
    });
  }
}

export interface InProcessListen {
  url: string;
  stdout: WatchedOutput;
  stderr: WatchedOutput;
  /** Its --json lines after the address line: one per request shown. */
  receipts(): any[];
  /** As Ctrl-C does: resolves with the exit code once every request under way is answered. */
  stop(): Promise<number>;
}

/** `listen --port 0 --json` run in this process, on 127.0.0.1; resolves once it listens. */
export async function listenInProcess(options: Partial<ListenOptions>, deps: Partial<ListenDeps> = {}): Promise<InProcessListen> {
  const stdout = new WatchedOutput();
  const stderr = new WatchedOutput();
  let interrupt: (code: number) => void = () => {};
  const stopSignal = new Promise<number>((resolve) => (interrupt = resolve));
  const exit = run(
    { port: 0, host: '127.0.0.1', respondStatus: 200, json: true, color: false, ...options },
    { stdin: fakeStdin(), stdout, stderr, env: {}, jsonOut: new PrintedJson(stdout), stopRequested: () => stopSignal, ...deps },
  );
  const exitedFirst = exit.then((code) => Promise.reject(new Error(`listen exited ${code} before it listened: ${stderr.text}`)));
  const url = await Promise.race([stdout.until((text) => /^\{"url":"([^"]+)"\}\n/.exec(text)?.[1]), exitedFirst]);
  return {
    url,
    stdout,
    stderr,
    receipts: () =>
      stdout.text
        .split('\n')
        .slice(1)
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line)),
    stop: () => {
      interrupt(130);
      return exit;
    },
  };
}
