import { interrupt } from './interrupt.js';

/** The questions a command may ask; tests inject answers, the terminal uses @inquirer/prompts. */
export interface Prompter {
  input(message: string, validate?: (value: string) => true | string): Promise<string>;
  password(message: string): Promise<string>;
  checkbox(message: string, choices: Array<{ name: string; value: string; short?: string }>): Promise<string[]>;
  confirm(message: string, defaultValue: boolean): Promise<boolean>;
}

/** A prompt's answer; Ctrl-C inside it (inquirer's ExitPromptError) is the same interruption as anywhere else. */
async function asked<T>(question: Promise<T>): Promise<T> {
  try {
    return await question;
  } catch (error) {
    if ((error as Error)?.name === 'ExitPromptError') interrupt();
    throw error;
  }
}

/** @inquirer/prompts, loaded only when a question is actually asked; questions go to stderr. */
export const inquirerPrompter: Prompter = {
  async input(message, validate) {
    const { input } = await import('@inquirer/prompts');
    return asked(input({ message, ...(validate ? { validate } : {}) }, { output: process.stderr }));
  },
  async password(message) {
    const { password } = await import('@inquirer/prompts');
    return asked(password({ message, mask: '*', validate: (v) => (v.length > 0 ? true : 'required') }, { output: process.stderr }));
  },
  async checkbox(message, choices) {
    const { checkbox } = await import('@inquirer/prompts');
    return asked(checkbox({ message, choices, required: true }, { output: process.stderr }));
  },
  async confirm(message, defaultValue) {
    const { confirm } = await import('@inquirer/prompts');
    return asked(confirm({ message, default: defaultValue }, { output: process.stderr }));
  },
};
