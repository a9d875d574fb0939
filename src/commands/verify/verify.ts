import { Command, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { readFileSync } from 'node:fs';
import { digestHex, signatureDigest, verify } from '../../signing/signature.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { requiredSecret } from '../../cli/secret.js';

/** Defines `verify`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = () =>
  new Command('verify')
    .description('check a signature offline; the payload comes from stdin unless --payload-file')
    .requiredOption('--signature <sig>', 'the X-…-Signature value, with or without sha256=')
    .option('--secret-file <path>', 'the signing secret, read from this file')
    .option('--secret <secret>', 'the signing secret (prefer --secret-file: argv is visible to other users)')
    .option('--payload-file <path>', 'the raw body as received')
    .addHelpText('after', examples('whsvc verify --signature "sha256=…" --secret-file ./whsec.txt --payload-file body.json'))
    .action(
      action(async ({ io, globals }, o) =>
        run({ signature: o.signature, secret: o.secret, secretFile: o.secretFile, payloadFile: o.payloadFile, json: globals.json }, io),
      ),
    );

export interface VerifyOptions {
  signature: string;
  secret?: string | undefined;
  secretFile?: string | undefined;
  payloadFile?: string | undefined;
  json: boolean;
}

async function readStdin(stdin: Io['stdin']): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks);
}

/** Why a body that does not verify may have been changed on its way: the usual suspects, checked. */
function diagnose(secret: string, body: Buffer, given: string): string | undefined {
  const text = body.toString('utf8');
  const changes: Array<[string, string]> = [];
  if (/\r?\n$/.test(text)) changes.push(['a trailing newline was added to the body (echo, an editor)', text.replace(/\r?\n$/, '')]);
  let isJson = false;
  try {
    changes.push(['the body was re-serialised (its whitespace or key order changed)', JSON.stringify(JSON.parse(text))]);
    isJson = true;
  } catch {
    // not JSON: nothing to re-serialise
  }
  const found = changes.find(([, variant]) => variant !== text && verify(secret, variant, given));
  if (found) return `${found[0]}: the signature matches the original; verify the raw bytes as received, before any parsing`;
  if (isJson && /\n\s+"/.test(text)) {
    return 'the body looks re-serialised (pretty-printed): a signature covers the raw bytes as sent, so verify them before any parsing';
  }
  return undefined;
}

const sanitizeGiven = (text: string) => text.replace(/[^\x20-\x7e…]/g, '?');

export async function run(options: VerifyOptions, io: Io): Promise<number> {
  const secret = requiredSecret(options, io.env);
  if (!options.signature.trim()) throw usageError('--signature is empty');
  let body: Buffer;
  if (options.payloadFile) {
    try {
      body = readFileSync(options.payloadFile);
    } catch (error) {
      throw usageError(`--payload-file ${options.payloadFile} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
  } else {
    if (io.stdin.isTTY) throw usageError('no payload: pipe the raw body in, or pass --payload-file FILE');
    body = await readStdin(io.stdin);
  }
  const valid = verify(secret, body, options.signature);
  const given = signatureDigest(options.signature);
  const expected = digestHex(secret, body);
  const hint = valid ? undefined : diagnose(secret, body, options.signature);
  if (options.json) {
    io.stdout.write(
      `${JSON.stringify({ valid, body_bytes: body.length, expected_prefix: expected.slice(0, 8), given_prefix: given.slice(0, 8), ...(hint ? { hint } : {}) })}\n`,
    );
  }
  if (valid) {
    if (!options.json) io.stdout.write(`valid: the signature matches the ${body.length}-byte body\n`);
    return ExitCode.ok;
  }
  const shown = given.length > 8 ? `${given.slice(0, 8)}…` : given || '(empty)';
  io.stderr.write(`invalid: signature does not match the ${body.length}-byte body (expected sha256=${expected.slice(0, 8)}…, got ${sanitizeGiven(shown)})\n`);
  if (!/^[0-9a-fA-F]{64}$/.test(given)) io.stderr.write('hint: a signature is sha256= followed by 64 hex digits\n');
  else if (hint) io.stderr.write(`hint: ${hint}\n`);
  else io.stderr.write("hint: check that the secret is this webhook's signing_secret and that the body is byte for byte what was sent\n");
  return ExitCode.failure;
}
