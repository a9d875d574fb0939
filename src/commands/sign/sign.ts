import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { once, platformNameOption } from '../../cli/parse.js';
import { checkSecretFilePath, requiredSecret } from '../../cli/secret.js';
import { readFileFlag, STDIN } from '../../cli/stdin.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { sign } from '../../protocol/signature.js';

/** Defines `sign`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = () =>
  new Command('sign')
    .description('the signature of a body, as the service sends and stores it: sha256= and the hex HMAC-SHA256 of its exact bytes')
    .addOption(
      new Option('--secret-file <path>', 'the signing secret, read from this file (- reads stdin)')
        .makeOptionMandatory()
        .argParser(once('sign uses one secret')),
    )
    .option('--payload-file <path>', 'the body, read from this file byte for byte (without it, or with -: stdin)')
    .addOption(platformNameOption('the platform name of the header --json names: X-<name>-Signature'))
    .addHelpText(
      'after',
      examples(
        'whsvc sign --secret-file ./whsec.txt --payload-file body.json',
        'whsvc sign --secret-file ./whsec.txt < body.json',
        'whsvc sign --secret-file ./whsec.txt --payload-file body.json --json   # the header too',
      ),
    )
    .action(
      action(async ({ io, globals }, o) => run({ secretFile: o.secretFile, payloadFile: o.payloadFile, platformName: o.platformName, json: globals.json }, io)),
    );

export interface SignOptions {
  secretFile: string;
  payloadFile?: string | undefined;
  platformName: string;
  json: boolean;
}

export async function run(options: SignOptions, io: Io): Promise<number> {
  checkSecretFilePath(options.secretFile);
  const payloadFile = options.payloadFile ?? STDIN;
  if (payloadFile === STDIN && options.secretFile === STDIN) {
    const payload = options.payloadFile === STDIN ? '--payload-file -' : 'the payload (without --payload-file)';
    throw usageError(`--secret-file - and ${payload} both read stdin, which can be read once: give one of them a file`);
  }
  const secret = await requiredSecret({ secretFile: options.secretFile }, io);
  const body = await readFileFlag('--payload-file', payloadFile, io.stdin, 'no payload: pipe the body in, or pass --payload-file FILE');
  const signature = sign(secret, body);
  if (options.json) io.jsonOut.line({ signature, header: { name: signatureHeaderName(options.platformName), value: signature }, body_bytes: body.length });
  else io.stdout.write(`${signature}\n`);
  return ExitCode.ok;
}
