import { Command, Option, type CommandUnknownOpts } from '@commander-js/extra-typings';
import { action, addVerbs } from '../../cli/actions.js';
import { examples } from '../../cli/examples.js';
import { checkSignatureWith, digestHex, SIGNATURE_PREFIX, signatureProblem, verify } from '../../protocol/signature.js';
import type { Io } from '../../cli/deps.js';
import { ExitCode, usageError } from '../../cli/errors.js';
import { collect } from '../../cli/parse.js';
import { checkSecretFilePath } from '../../cli/secret.js';
import { requiredSecrets } from '../../receiver/secrets.js';
import { readFileFlag, refuseTwoReadsOfStdin, STDIN } from '../../cli/stdin.js';
import { laidOut } from '../../render/wrap.js';
import { countText } from '../../render/text.js';

/** Defines `verify`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

export const command = (runF = run) =>
  new Command('verify')
    .description('check a signature offline; the payload comes from stdin unless --payload-file')
    .requiredOption('--signature <sig>', 'the X-…-Signature value: sha256= and 64 hex digits')
    .addOption(
      new Option('--secret-file <path>', 'the signing secret, read from this file (- reads stdin); repeatable: any of them verifies').argParser(
        collect((value: string) => value),
      ),
    )
    .option('--secret <secret>', 'the signing secret (prefer --secret-file: argv is visible to other users)')
    .option('--payload-file <path>', 'the raw body as received, read from this file (without it, or with -: stdin)')
    .addHelpText(
      'after',
      examples(
        'whsvc verify --signature "sha256=…" --secret-file ./whsec.txt --payload-file body.json',
        'whsvc verify --signature "sha256=…" --secret-file ./whsec.txt < body.json',
        'whsvc verify --signature "sha256=…" --secret-file ./old.txt --secret-file ./new.txt < body.json   # moving to a new secret',
      ),
    )
    .action(
      action(async ({ io, globals }, o) =>
        runF(verifyOptions({ signature: o.signature, secret: o.secret, secretFiles: o.secretFile, payloadFile: o.payloadFile, json: globals.json }), io),
      ),
    );

export interface VerifyOptions {
  signature: string;
  secret?: string | undefined;
  /** Each --secret-file: several while a receiver moves to a new secret (any of them verifies). */
  secretFiles?: string[] | undefined;
  payloadFile?: string | undefined;
  json: boolean;
}

/** Why a body that does not verify may have been changed on its way: the usual suspects, checked. */
function diagnose(secret: string, body: Buffer, given: string): string | undefined {
  const text = body.toString('utf8');
  const changes: Array<[string, string]> = [];
  if (/\r?\n$/.test(text)) changes.push(['a trailing newline was added to the body (echo, an editor)', text.replace(/\r?\n$/, '')]);
  // And the other way: the body as sent ended in a newline that was lost ($(…) in a shell, a trim, a copy from a log).
  else
    changes.push(
      ["the trailing newline the body was sent with was removed (a shell's $(…), a trim, a copy)", `${text}\n`],
      ['the trailing CRLF the body was sent with was removed', `${text}\r\n`],
    );
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

/** The flags as given, refused when a secret file is empty, the signature cannot be one, or two flags would read stdin. */
function verifyOptions(options: VerifyOptions): VerifyOptions {
  for (const path of options.secretFiles ?? []) checkSecretFilePath(path);
  const problem = signatureProblem(options.signature);
  if (problem !== undefined) {
    const shown = options.signature.trim() === '' ? '--signature' : `--signature ${sanitizeGiven(abbreviated(options.signature.trim()))}`;
    throw usageError(`${shown} ${problem}`, 'a signature is the X-…-Signature value as received: sha256= and 64 hex digits');
  }
  if (options.secretFiles?.includes(STDIN)) refuseTwoReadsOfStdin(options.payloadFile);
  return options;
}

/** Checks the signature of the payload with each secret (verifyOptions has checked the flags). */
export async function run(options: VerifyOptions, io: Io): Promise<number> {
  const { payloadFile } = options;
  const secrets = await requiredSecrets(options, io);
  const body = await readFileFlag('--payload-file', payloadFile ?? STDIN, io.stdin, 'no payload: pipe the raw body in, or pass --payload-file FILE');
  const signature = options.signature.trim();
  const { check, by } = checkSignatureWith(secrets, body, signature);
  const given = signature.slice(SIGNATURE_PREFIX.length);
  // What each secret makes of the body: the first digits only, never the secret.
  const expected = secrets.map(({ name, secret }) => ({ name, prefix: digestHex(secret, body).slice(0, 8) }));
  const hint = check === 'verified' ? undefined : secrets.map(({ secret }) => diagnose(secret, body, signature)).find((found) => found !== undefined);
  const several = secrets.length > 1;
  if (options.json) {
    const document = {
      signature_check: check,
      signature,
      // Which secret verified it, by its file (never the secret).
      verified_by: by?.name ?? null,
      body_bytes: body.length,
      expected_prefix: expected[0]!.prefix,
      ...(several ? { expected_prefixes: Object.fromEntries(expected.map(({ name, prefix }) => [name, prefix])) } : {}),
      ...(hint ? { hint } : {}),
    };
    io.jsonOut.line(document);
  }
  if (check === 'verified') {
    if (!options.json)
      io.stdout.write(laidOut(io.stdout, `verified${several ? ` by ${by!.name}` : ''}: the signature matches the ${countText(body.length)}-byte body\n`));
    return ExitCode.ok;
  }
  const expectedWords = expected.map(({ name, prefix }) => `${SIGNATURE_PREFIX}${prefix}…${several ? ` with ${name}` : ''}`).join(' or ');
  io.stderr.write(
    laidOut(
      io.stderr,
      `mismatch: the signature does not match the ${countText(body.length)}-byte body${several ? ` under any of the ${secrets.length} secrets` : ''} (expected ${expectedWords}, got ${SIGNATURE_PREFIX}${given.slice(0, 8)}…)\n`,
    ),
  );
  io.stderr.write(
    laidOut(io.stderr, `hint: ${hint ?? "check that the secret is this webhook's signing_secret and that the body is byte for byte what was sent"}\n`),
  );
  return ExitCode.failure;
}

/** A long value cut to its start, for a message. */
const abbreviated = (text: string) => (text.length > 24 ? `${text.slice(0, 23)}…` : text);
