import { execFileSync, spawnSync } from 'node:child_process';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/** A real terminal: a detached tmux session running one shell command, driven by send-keys and read by capture-pane. */
export class TmuxSession {
  private readonly name = `whsvc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  constructor(command: string, env: Record<string, string>, size: { columns: number; rows: number } = { columns: 120, rows: 40 }) {
    const exports = Object.entries(env)
      .map(([key, value]) => `${key}=${shellQuote(value)}`)
      .join(' ');
    // The shell stays after the command so that the screen can still be read.
    execFileSync('tmux', [
      'new-session',
      '-d',
      '-s',
      this.name,
      '-x',
      String(size.columns),
      '-y',
      String(size.rows),
      `env -u CI ${exports} ${command}; echo "EXIT=$?"; sleep 600`,
    ]);
  }

  /** The screen; `joined` undoes the terminal's wrapping, so that a line too long for it shows as one long line. */
  screen(withEscapes = false, joined = false): string {
    return execFileSync('tmux', ['capture-pane', '-p', ...(withEscapes ? ['-e'] : []), ...(joined ? ['-J', '-S', '-'] : []), '-t', this.name], {
      encoding: 'utf8',
    });
  }

  type(text: string): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, '-l', text]);
  }

  press(...keys: string[]): void {
    execFileSync('tmux', ['send-keys', '-t', this.name, ...keys]);
  }

  async waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const screen = this.screen();
      if (pattern.test(screen)) return screen;
      if (Date.now() > deadline) throw new Error(`the terminal never showed ${pattern}:\n${screen}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  close(): void {
    spawnSync('tmux', ['kill-session', '-t', this.name]);
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
