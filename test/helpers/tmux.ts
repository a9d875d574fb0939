import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

/**
 * A tmux server of this test process's own, with no configuration: a server the user (or another test run) started
 * keeps the environment it was started with, and its sessions would inherit that (a WHSVC_CLIENT_SECRET of another
 * sandbox), and its settings.
 */
const SERVER = ['-L', `whsvc-test-${process.pid}`, '-f', '/dev/null'];

/** A real terminal: a detached tmux session running one shell command, driven by send-keys and read by capture-pane. */
export class TmuxSession {
  private readonly name = `whsvc-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
  private readonly dir = mkdtempSync(join(tmpdir(), 'whsvc-tmux-'));

  constructor(command: string, env: Record<string, string>, size: { columns: number; rows: number } = { columns: 120, rows: 40 }) {
    const exports = Object.entries(env)
      .map(([key, value]) => `${key}=${shellQuote(value)}`)
      .join(' ');
    // The shell stays after the command so that the screen can still be read.
    execFileSync('tmux', [
      ...SERVER,
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
    // Every byte the terminal is sent from here on, kept: what was drawn and drawn over, not only what shows now.
    execFileSync('tmux', [...SERVER, 'pipe-pane', '-t', this.name, `cat >> ${shellQuote(join(this.dir, 'output'))}`]);
  }

  /** All the terminal was sent since the session began (but its very first output), escapes and all. */
  written(): string {
    try {
      return readFileSync(join(this.dir, 'output'), 'utf8');
    } catch {
      return '';
    }
  }

  /** The screen; `joined` undoes the terminal's wrapping, so that a line too long for it shows as one long line. */
  screen(withEscapes = false, joined = false): string {
    return execFileSync('tmux', [...SERVER, 'capture-pane', '-p', ...(withEscapes ? ['-e'] : []), ...(joined ? ['-J', '-S', '-'] : []), '-t', this.name], {
      encoding: 'utf8',
    });
  }

  type(text: string): void {
    execFileSync('tmux', [...SERVER, 'send-keys', '-t', this.name, '-l', text]);
  }

  press(...keys: string[]): void {
    execFileSync('tmux', [...SERVER, 'send-keys', '-t', this.name, ...keys]);
  }

  /** The terminal made `columns` wide and `rows` high, as a user drags its window. */
  resize(columns: number, rows: number): void {
    execFileSync('tmux', [...SERVER, 'resize-window', '-t', this.name, '-x', String(columns), '-y', String(rows)]);
  }

  /** The screen once it shows `pattern`; `joined`: all its lines, unwrapped, scrolled off ones too (screen's `joined`). */
  waitFor(pattern: RegExp, timeoutMs = 20_000, joined = false): Promise<string> {
    return lookedAtUntil(() => this.screen(false, joined), pattern, timeoutMs, 'the terminal never showed');
  }

  /** All the terminal was sent, once it holds `pattern`. */
  waitForWritten(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    return lookedAtUntil(() => this.written(), pattern, timeoutMs, 'the terminal was never sent');
  }

  close(): void {
    spawnSync('tmux', [...SERVER, 'kill-session', '-t', this.name]);
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** tmux says nothing when its screen changes: it is looked at again and again until it holds `pattern`. */
async function lookedAtUntil(read: () => string, pattern: RegExp, timeoutMs: number, never: string): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const text = read();
    if (pattern.test(text)) return text;
    if (Date.now() > deadline) throw new Error(`${never} ${pattern}:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** What one command line showed in a terminal: its lines, unwrapped (one longer than the terminal shows whole), blank ones left out; its exit code. */
export interface Shown {
  lines: string[];
  code: number;
}

/**
 * Command lines run one after the other in one terminal (a session of its own, `env` given to each), as a user types
 * them at one prompt: what each showed, in order. Each is followed by its `EXIT=<code>` line, which ends its lines.
 */
export async function shownInOneTerminal(
  commands: string[],
  env: Record<string, string>,
  size: { columns: number; rows: number },
): Promise<{ session: TmuxSession; shown: Shown[] }> {
  const script = commands.map((command) => `${command}; echo "EXIT=$?"`).join('; ');
  const session = new TmuxSession(`sh -c ${shellQuote(script)}`, env, size);
  // One EXIT line per command, and the session's own after the shell.
  const screen = await session.waitFor(new RegExp(`(?:^EXIT=\\d+[\\s\\S]*?){${commands.length + 1}}`, 'm'), 20_000 * commands.length, true);
  const shown: Shown[] = [];
  let lines: string[] = [];
  for (const line of screen.split('\n')) {
    const exit = /^EXIT=(\d+)/.exec(line);
    if (!exit) {
      if (line.trim() !== '') lines.push(line);
      continue;
    }
    if (shown.length < commands.length) shown.push({ lines, code: Number(exit[1]) });
    lines = [];
  }
  return { session, shown };
}
