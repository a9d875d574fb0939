import { describe, expect, it } from 'vitest';
import { runInProcess } from '../helpers/in-process.js';

// The screen of listen -i and tail -i is for a person at a terminal: --json with it, or a stdout or stdin that is no
// terminal, is a usage error that says why, before anything is started (listen listens on no port, tail asks the
// service nothing: its address here is one where nothing answers). The screen itself, in a real terminal:
// test/e2e/terminal.test.ts.

const NOWHERE = { WHSVC_BASE_URL: 'http://127.0.0.1:9', WHSVC_CLIENT_ID: 'id', WHSVC_CLIENT_SECRET: 'secret' };
const firstLine = (text: string) => text.split('\n')[0];

describe('--interactive, refused where it cannot work', () => {
  it.each(['listen', 'deliveries tail'])('%s -i with --json: exit 2, naming both', async (command) => {
    const result = await runInProcess([...command.split(' '), '-i', '--json'], { env: NOWHERE, terminal: { columns: 200 } });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toMatch(/^whsvc: --interactive draws a screen for a person and --json writes lines for a program: give one of them/);
  });

  it.each(['listen', 'deliveries tail'])('%s -i into a pipe: exit 2, saying stdout is not a terminal', async (command) => {
    const result = await runInProcess([...command.split(' '), '--interactive'], { env: NOWHERE });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^whsvc: --interactive draws a full screen, and stdout is not a terminal \(a pipe or a file\)\nhint: leave out --interactive/,
    );
    expect(result.stdout).toBe('');
  });

  it('listen -i on a terminal with stdin piped: exit 2, saying it reads its keys from stdin', async () => {
    const result = await runInProcess(['listen', '-i', '--port', '0'], { env: NOWHERE, terminal: { columns: 80 }, input: 'x' });
    expect(result.code).toBe(2);
    expect(firstLine(result.stderr)).toBe('whsvc: --interactive reads its keys from stdin, which is not a terminal');
  });
});
