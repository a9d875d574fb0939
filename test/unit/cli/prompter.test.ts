import { PassThrough, Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import { describe, expect, it } from 'vitest';
import { inquirerPrompter, questionText } from '../../../src/cli/prompter.js';
import type { Host } from '../../../src/cli/host.js';
import { displayWidth } from '../../../src/render/width.js';

const URL = 'http://127.0.0.1:43155/hooks';
const DELETE = `Delete webhook wh_b8150f52bf1c33c0d56f09d4 (${URL})? Its deliveries stop at once and its secret is revoked.`;

/** A terminal `columns` wide that inquirer asks on: what it showed, once `answer` was typed after the question. */
async function asked(columns: number, ask: (prompter: ReturnType<typeof inquirerPrompter>) => Promise<unknown>, answer: string): Promise<string> {
  const stdin = new PassThrough();
  let shown = '';
  // Typed once the question is on the screen.
  let type = () => {};
  const onScreen = new Promise<void>((resolve) => {
    type = resolve;
  });
  const stderr = Object.assign(
    new Writable({
      write(chunk, _encoding, done) {
        shown += chunk.toString();
        if (shown.includes('?')) type();
        done();
      },
    }),
    { isTTY: true, columns, rows: 24 },
  );
  const prompter = inquirerPrompter({ stdin, stderr } as unknown as Pick<Host, 'stdin' | 'stderr'>, {
    interrupt: () => {
      throw new Error('interrupted');
    },
  });
  const question = ask(prompter);
  await onScreen;
  stdin.write(answer);
  await question;
  // A cursor's move or an erase (any control sequence but a colour's) ends what was drawn on a line.
  return stripVTControlCharacters(shown.replace(/\u001b\[[0-9;?]*[A-Za-ln-z]/g, '\n'));
}

describe("a question laid out for the terminal's width (issue 44)", () => {
  it.each([60, 80, 132])("webhooks delete's confirmation at %i columns: broken between words under its text, the URL and the id whole", async (columns) => {
    const shown = await asked(columns, (prompter) => prompter.confirm(DELETE, false), 'y\r');
    // Each line inquirer drew (it redraws the question as it is answered).
    const lines = shown.split(/\r?\n|\r/).filter((line) => line.trim() !== '');
    for (const line of lines) expect(displayWidth(line), shown).toBeLessThanOrEqual(columns);
    expect(shown).toContain('wh_b8150f52bf1c33c0d56f09d4');
    expect(shown).toContain(`(${URL})?`);
    // A continuation starts under the text after `? `, never with a space of its own.
    for (const line of lines.filter((line) => !/^[?✔] /.test(line))) expect(line, shown).toMatch(/^ {2}\S/);
  });

  it('the words are the message, with what inquirer writes after it kept on its last line', () => {
    expect(questionText(DELETE, undefined, ' (y/N) yes')).toBe(DELETE);
    const laid = questionText(DELETE, 60, ' (y/N) yes');
    expect(laid.replace(/\n {2}/g, ' ')).toBe(DELETE);
    expect(displayWidth(`? ${laid.split('\n').pop()!} (y/N) yes`)).toBeLessThanOrEqual(60);
  });

  it('a message ending in spaces keeps its last word and its `?`, the spaces dropped', () => {
    const message = 'Rotate the signing secret of wh_b8150f52bf1c33c0d56f09d4 now?  ';
    const laid = questionText(message, 58, ' (y/N) yes');
    expect(laid.replace(/\n {2}/g, ' ')).toBe(message.trim());
    expect(laid.endsWith('now?'), laid).toBe(true);
    expect(questionText(message, undefined, ' (y/N) yes')).toBe(message.trim());
  });
});
