import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { once, platformNameOption } from '../../cli/parse.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { requiredSecret } from '../../receiver/secrets.js';
import { readFileFlag, refuseTwoReadsOfStdin, STDIN } from '../../cli/stdin.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { sign } from '../../protocol/signature.js';

/** Defines `sign`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = (runF = run) =>
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
      action(async ({ io, globals }, o) =>
        runF(signOptions({ secretFile: o.secretFile, payloadFile: o.payloadFile, platformName: o.platformName, json: globals.json }), io),
      ),
    );

export interface SignOptions {
  secretFile: string;
  payloadFile?: string | undefined;
  platformName: string;
  json: boolean;
}

/** The flags as given, refused when the secret file is empty or both it and the payload would read stdin. */
function signOptions(options: SignOptions): SignOptions {
  checkSecretFilePath(options.secretFile);
  if (options.secretFile === STDIN) refuseTwoReadsOfStdin(options.payloadFile);
  return options;
}

/** Signs the payload with the secret (signOptions has checked where each comes from). */
export async function run(options: SignOptions, io: Io): Promise<number> {
  const payloadFile = options.payloadFile ?? STDIN;
  const secret = await requiredSecret({ secretFile: options.secretFile }, io);
  const body = await readFileFlag('--payload-file', payloadFile, io.stdin, 'no payload: pipe the body in, or pass --payload-file FILE');
  const signature = sign(secret, body);
  if (options.json) io.jsonOut.line({ signature, header: { name: signatureHeaderName(options.platformName), value: signature }, body_bytes: body.length });
  else io.stdout.write(`${signature}\n`);
  return ExitCode.ok;
}
