import type { Command } from 'commander';
import { examples } from '../../cli/examples.js';
import { processIo } from '../../cli/deps.js';
import { run } from './run.js';

/** Defines `verify`. */
export function register(program: Command): void {
  program
    .command('verify')
    .description('check a signature offline; the payload comes from stdin unless --payload-file')
    .requiredOption('--signature <sig>', 'the X-…-Signature value, with or without sha256=')
    .option('--secret-file <path>', 'the signing secret, read from this file')
    .option('--secret <secret>', 'the signing secret (prefer --secret-file: argv is visible to other users)')
    .option('--payload-file <path>', 'the raw body as received')
    .addHelpText('after', examples('whsvc verify --signature "sha256=…" --secret-file ./whsec.txt --payload-file body.json'))
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      process.exitCode = await run(
        { signature: opts.signature, secret: opts.secret, secretFile: opts.secretFile, payloadFile: opts.payloadFile, json: Boolean(opts.json) },
        processIo(),
      );
    });
}
