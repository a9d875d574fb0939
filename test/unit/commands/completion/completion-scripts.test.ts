import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHELLS, script } from '../../../../src/commands/completion/completion.js';
import { displayWidth } from '../../../../src/render/width.js';

// The completion scripts in the shells themselves: each parses, and completes a word typed at the shell from what
// whsvc answers. whsvc here is a stub that answers the scripts' protocol (`whsvc __complete -- <words…>`, one
// candidate a line) and records the words it was given: which candidates whsvc gives is completion.test.ts's, the
// built binary behind a real bash is test/e2e/listen-verify.test.ts's. .ci/run installs shellcheck, zsh and fish
// (Debian's packages); elsewhere a shell that is missing skips its tests, in CI it fails them.

/** Whether `shell` runs here; when not, CI fails its tests (they run, and find no shell) and elsewhere skips them. */
function present(shell: string): boolean {
  const found = spawnSync(shell, ['--version'], { stdio: 'ignore' }).error === undefined;
  if (!found && !process.env.CI) process.stderr.write(`completion scripts: ${shell}'s tests skipped, no ${shell} on PATH (apt-get install ${shell})\n`);
  return found || Boolean(process.env.CI);
}

// Only a hang is bounded, so that a shell waiting on input fails the test instead of holding the run.
const HANG = 30_000;

let dir: string;
let home: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-completion-scripts-'));
  home = join(dir, 'home');
  mkdirSync(join(dir, 'bin'));
  mkdirSync(home);
  // whsvc as the scripts call it: each call's words, `|` after each, a line a call; then the answer it was set.
  writeFileSync(join(dir, 'bin', 'whsvc'), `#!/bin/sh\nprintf '%s|' "$@" >> "$STUB_DIR/calls"\necho >> "$STUB_DIR/calls"\nprintf '%s' "$STUB_ANSWER"\n`, {
    mode: 0o755,
  });
  for (const shell of SHELLS) writeFileSync(join(dir, `whsvc.${shell}`), script(shell));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `command args…` with the stub first on PATH answering `answer`; its stdout, and the calls the stub had. */
function inShell(command: string, args: string[], answer = '') {
  const env = {
    ...process.env,
    PATH: `${join(dir, 'bin')}:${process.env.PATH}`,
    HOME: home,
    ZDOTDIR: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    STUB_DIR: dir,
    STUB_ANSWER: answer,
  };
  writeFileSync(join(dir, 'calls'), '');
  const result = spawnSync(command, args, { cwd: dir, env, encoding: 'utf8', timeout: HANG });
  expect(result.error, `${command} did not run (.ci/run installs it): ${result.stderr}`).toBeUndefined();
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  const calls = readFileSync(join(dir, 'calls'), 'utf8').split('\n').filter(Boolean);
  return { lines: result.stdout.split('\n').filter(Boolean), calls };
}

describe('the completion scripts', () => {
  it('fit 80 columns, every line: printed to a terminal, none is wrapped', () => {
    for (const shell of SHELLS) {
      const wide = script(shell)
        .split('\n')
        .filter((line) => displayWidth(line) > 80);
      expect(wide, shell).toEqual([]);
    }
  });
});

describe('the bash script', () => {
  // shellcheck is installed by .ci/run, as tmux is.
  it('passes shellcheck with no warning', () => {
    const checked = spawnSync('shellcheck', ['-s', 'bash', '-'], { input: script('bash'), encoding: 'utf8' });
    expect(checked.error).toBeUndefined();
    expect(checked.stdout).toBe('');
    expect(checked.status).toBe(0);
  });

  // The completion function called as bash calls it at a Tab: the words typed in COMP_WORDS, the cursor's in COMP_CWORD.
  const complete = (words: string[], answer: string) =>
    inShell(
      'bash',
      ['-c', `source whsvc.bash; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _whsvc_complete; printf "%s\\n" "\${COMPREPLY[@]}"`, 'bash', ...words],
      answer,
    );

  it('parses, and offers what whsvc answers for the words typed, the word being typed last (maybe empty)', () => {
    expect(inShell('bash', ['-n', 'whsvc.bash']).lines).toEqual([]);
    expect(complete(['whsvc', 'webhooks', 'l'], 'list\n')).toEqual({ lines: ['list'], calls: ['__complete|--|webhooks|l|'] });
    expect(complete(['whsvc', '--profile', 'dev', 'a'], 'auth\napi\n')).toEqual({ lines: ['auth', 'api'], calls: ['__complete|--|--profile|dev|a|'] });
    expect(complete(['whsvc', 'webhooks', ''], 'list\nget\n').calls).toEqual(['__complete|--|webhooks||']);
  });
});

describe.skipIf(!present('zsh'))('the zsh script', () => {
  it('parses, and loads after compinit: whsvc completed by its function', () => {
    expect(inShell('zsh', ['-n', 'whsvc.zsh']).lines).toEqual([]);
    const loaded = inShell('zsh', ['-f', '-c', 'autoload -U compinit; compinit -D; source ./whsvc.zsh; print -r -- $_comps[whsvc]']);
    expect(loaded.lines).toEqual(['_whsvc_complete']);
  });

  it('completes the word at a Tab in a real zsh line editor (zpty), from what whsvc answers', () => {
    // An interactive zsh in a pseudo-terminal loads the script after compinit, as ~/.zshrc does; the line typed,
    // a Tab and Enter run the completed line (the stub again), then exit ends the output that is read to its end.
    writeFileSync(join(home, '.zshenv'), 'unsetopt GLOBAL_RCS\n');
    writeFileSync(join(home, '.zshrc'), `autoload -U compinit; compinit -D\nsource ${join(dir, 'whsvc.zsh')}\nPS1='READY> '\n`);
    const drive = [
      'zmodload zsh/zpty',
      'zpty z zsh -i',
      "zpty -r z out '*READY> ' || exit 3",
      `zpty -w -n z "$1"$'\\t\\r'`,
      'zpty -w z exit',
      'while zpty -r z line; do :; done',
    ].join('\n');
    const { calls } = inShell('zsh', ['-f', '-c', drive, 'zsh', 'whsvc webhooks rot'], 'rotate-secret\n');
    expect(calls).toEqual(['__complete|--|webhooks|rot|', 'webhooks|rotate-secret|']);
  });
});

describe.skipIf(!present('fish'))('the fish script', () => {
  // fish's own completion of a command line, as at a Tab: `complete -C LINE` prints the candidates (sorted).
  const complete = (line: string, answer: string) => inShell('fish', ['--no-config', '-c', 'source whsvc.fish; complete -C $argv[1]', line], answer);

  it('parses, and offers what whsvc answers for the words typed, the word being typed last (maybe empty)', () => {
    expect(inShell('fish', ['--no-execute', 'whsvc.fish']).lines).toEqual([]);
    expect(complete('whsvc webhooks l', 'list\n')).toEqual({ lines: ['list'], calls: ['__complete|--|webhooks|l|'] });
    expect(complete('whsvc --profile dev a', 'auth\napi\n')).toEqual({ lines: ['api', 'auth'], calls: ['__complete|--|--profile|dev|a|'] });
    expect(complete('whsvc webhooks ', 'list\nget\n').calls).toEqual(['__complete|--|webhooks||']);
  });
});

describe('the PowerShell script', () => {
  it('registers a native completer that asks whsvc __complete, the word being typed apart as --current=', () => {
    const text = script('powershell');
    expect(text).toContain('Register-ArgumentCompleter -Native -CommandName whsvc,');
    expect(text).toContain('whsvc __complete "--current=$wordToComplete" -- @before');
    expect(text).toContain('[System.Management.Automation.CompletionResult]::new(');
  });
});
