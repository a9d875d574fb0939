import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/render/width.js';
import { terminalColumns, wrapLine } from '../../../src/render/wrap.js';

const widths = (text: string) => text.split('\n').map((line) => displayWidth(line));

describe('wrapLine: prose laid out for a terminal, as --help is', () => {
  const line = 'fail  2  bytes unlike a re-serialization are taken: answered 401 "signature mismatch", where the same JSON written compactly was taken';

  it('broken between words, each continuation under its text; its own runs of spaces kept', () => {
    expect(wrapLine(line, 60, ' '.repeat(9))).toBe(
      [
        'fail  2  bytes unlike a re-serialization are taken: answered',
        '         401 "signature mismatch", where the same JSON',
        '         written compactly was taken',
      ].join('\n'),
    );
    for (const width of [40, 60, 80, 132]) {
      const laid = wrapLine(line, width, ' '.repeat(9));
      for (const size of widths(laid)) expect(size).toBeLessThanOrEqual(width);
      // Every word whole, in order: the lines joined again are the line.
      expect(laid.replace(/\n {9}/g, ' ')).toBe(line);
    }
  });

  it('its own indent kept on the first line; a line that fits, and any line off a terminal (no width), as it is', () => {
    expect(wrapLine('         fix: answer 400 or 401 when the signature is missing', 40, ' '.repeat(11))).toBe(
      '         fix: answer 400 or 401 when the\n           signature is missing',
    );
    expect(wrapLine(line, displayWidth(line))).toBe(line);
    expect(wrapLine(line, undefined)).toBe(line);
  });

  it('a word wider than the room (an id, a URL, a path) is never broken: whole, on a line of its own', () => {
    const url = 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices';
    expect(wrapLine(`checks of ${url}: 15 deliveries`, 40, '  ')).toBe(`checks of\n  ${url}:\n  15 deliveries`);
  });

  it('a name given to keep (a file with spaces in its name) is never broken at its spaces', () => {
    const file = './my secrets/new whsec.txt';
    const text = `signed with the secrets in ./old.txt and ${file} (X-Service-Signature)`;
    // Left alone, the line breaks inside the name: `./my secrets/new` ends the first line.
    expect(wrapLine(text, 60, '  ').split('\n')[0]).toBe('signed with the secrets in ./old.txt and ./my secrets/new');
    expect(wrapLine(text, 60, '  ', [file])).toBe(`signed with the secrets in ./old.txt and\n  ${file} (X-Service-Signature)`);
  });

  it('colour codes take no column', () => {
    const red = (text: string) => `\u001b[31m${text}\u001b[39m`;
    // 60 columns shown, 70 characters.
    const laid = wrapLine(`${red('fail')}  3  a body changed by one byte is refused: answered 200`, 60, ' '.repeat(9));
    expect(laid).toBe(`${red('fail')}  3  a body changed by one byte is refused: answered 200`);
    const narrow = wrapLine(`${red('fail')}  3  a body changed by one byte is refused`, 30, ' '.repeat(9));
    expect(narrow.split('\n')[0]).toBe(`${red('fail')}  3  a body changed by one`);
  });

  it("the width is a terminal's columns; a pipe, a file, or a terminal of no size gets none", () => {
    expect(terminalColumns({ write: () => true, isTTY: true, columns: 80 })).toBe(80);
    expect(terminalColumns({ write: () => true, isTTY: false, columns: 80 })).toBeUndefined();
    expect(terminalColumns({ write: () => true, isTTY: true, columns: 0 })).toBeUndefined();
    expect(terminalColumns({ write: () => true })).toBeUndefined();
  });
});
