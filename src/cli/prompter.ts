import type { Readable, Writable } from 'node:stream';
import { terminalColumns, wrapLine } from '../render/wrap.js';
import type { Host } from './host.js';
import type { Interrupts } from './interrupt.js';

/** The questions a command may ask; tests inject answers, the terminal uses @inquirer/prompts. */
export interface Prompter {
  input(message: string, validate?: (value: string) => true | string): Promise<string>;
  password(message: string): Promise<string>;
  checkbox(message: string, choices: Array<{ name: string; value: string; short?: string }>): Promise<string[]>;
  confirm(message: string, defaultValue: boolean): Promise<boolean>;
}

/** What inquirer writes after a yes/no question: its default (` (y/N) `) and the answer typed, `yes` at the most. */
const CONFIRM_AFTER = ' (y/N) yes';

/**
 * A question laid out for a terminal `width` wide as every line is (wrapLine): broken between words, its
 * continuations under its text, after the `? ` inquirer writes before it, and with what it writes after it (`after`)
 * on the last line with its last word. inquirer would break a line wider than the terminal anywhere, a URL or an id too.
 */
export function questionText(message: string, width: number | undefined, after = ''): string {
  // Spaces at its end are no part of it: they would be its last word, and the one before it (`now?`) lost.
  const text = message.trim();
  const last = text.slice(text.lastIndexOf(' ') + 1);
  const laid = wrapLine(`? ${text}${after}`, width, '  ', [`${last}${after}`]);
  return laid.slice(2, laid.length - after.length);
}

/**
 * @inquirer/prompts on the host's terminal, loaded only when a question is actually asked; questions go to stderr.
 * Ctrl-C inside a prompt (inquirer's ExitPromptError) is the same interruption as anywhere else.
 */
export function inquirerPrompter(host: Pick<Host, 'stdin' | 'stderr'>, interrupts: Pick<Interrupts, 'interrupt'>): Prompter {
  const context = { input: host.stdin as unknown as Readable, output: host.stderr as unknown as Writable };
  const laid = (message: string, after = '') => questionText(message, terminalColumns(host.stderr), after);
  const asked = async <T>(question: Promise<T>): Promise<T> => {
    try {
      return await question;
    } catch (error) {
      if ((error as Error)?.name === 'ExitPromptError') interrupts.interrupt();
      throw error;
    }
  };
  return {
    async input(message, validate) {
      const { input } = await import('@inquirer/prompts');
      return asked(input({ message: laid(message), ...(validate ? { validate } : {}) }, context));
    },
    async password(message) {
      const { password } = await import('@inquirer/prompts');
      return asked(password({ message: laid(message), mask: '*', validate: (v) => (v.length > 0 ? true : 'required') }, context));
    },
    async checkbox(message, choices) {
      const { checkbox } = await import('@inquirer/prompts');
      return asked(checkbox({ message: laid(message), choices, required: true }, context));
    },
    async confirm(message, defaultValue) {
      const { confirm } = await import('@inquirer/prompts');
      return asked(confirm({ message: laid(message, CONFIRM_AFTER), default: defaultValue }, context));
    },
  };
}
