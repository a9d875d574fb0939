// `sandbox start`'s run, loaded at its first use (start.ts): the sandbox's server, store and deliverer are not on the path of
// any other command.
import { resolve } from 'node:path';
import type { Io } from '../../cli/deps.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { CliError, listenError } from '../../cli/errors.js';
import { clockTime, fateWords, noAnswer, statusWords, elapsed } from '../../render/words.js';
import { deliveryFate } from '../../protocol/fate.js';
import { FileError } from '../../files/user-file.js';
import { defaultMaxConnections } from '../../sandbox/connections.js';
import { ManualSandboxClock } from '../../sandbox/clock.js';
import { createSandbox, type Sandbox } from '../../sandbox/server.js';
import type { AttemptRow, WebhookRow } from '../../sandbox/store/rows.js';
import { proxySettings } from '../../net.js';
import { counted, sanitize } from '../../render/text.js';
import { signatureHeaderName } from '../../protocol/headers.js';
import { laidOut, terminalColumns, wrapCommand, wrapLine } from '../../render/wrap.js';

export interface SandboxStartOptions {
  port: number;
  host: string;
  dataDir?: string | undefined;
  retryBaseMs: number;
  maxAttempts: number;
  tokenTtl: number;
  platformName: string;
  deliveryTimeoutMs: number;
  concurrencyPerWebhook: number;
  /** Sends in flight in the whole sandbox; by default from the process's file limit (connections.ts). */
  maxConnections?: number | undefined;
  /** Infinity keeps every delivery. */
  maxDeliveries: number;
  json: boolean;
  /** --clock manual: the sandbox's time moves only when told (whsvc sandbox clock advance). */
  manualClock?: boolean;
  rateLimit?: number | undefined;
  quiet: boolean;
}

export interface SandboxStartDeps extends Io {
  /** Resolves when the user asks the sandbox to stop, with the exit code to stop with. */
  stopSignal: Promise<number>;
}

/**
 * A failure inside the sandbox (out of file descriptors), said once per
 * reason on stderr: the sends it held back are tried again, none counted as
 * the endpoint's failure.
 */
function sayOncePerReason(stderr: Io['stderr']): (reason: string) => void {
  const said = new Set<string>();
  return (reason) => {
    if (said.has(reason)) return;
    said.add(reason);
    stderr.write(
      laidOut(
        stderr,
        `whsvc sandbox: a send could not start: ${reason}; such sends wait and are tried again, never counted as the endpoint's failure (raise the limit with ulimit -n, or lower --max-connections)\n`,
      ),
    );
  };
}

/**
 * An attempt just made in the words of its delivery's fate, the same as every command's: it is the delivery's newest
 * (the next cannot begin before it is logged), so none due after a failure is `failed · no more retries`.
 */
function attemptFate(attempt: AttemptRow): string {
  const fate = deliveryFate([attempt], true);
  const now = Date.parse(attempt.created_at);
  return fate ? fateWords(fate, now) : statusWords(attempt.status, attempt.next_attempt_at, now);
}

/** Where an attempt's line goes on when a terminal is too narrow for it: under its status. */
const ATTEMPT_HANG = ' '.repeat(9);

/** One line per attempt on stderr: what was sent where, and what came of it (the endpoint's answer, cut short). */
function attemptLine(attempt: AttemptRow, webhook: WebhookRow, width: number | undefined): string {
  // The sandbox's time: with a manual clock, when the attempt was due, not when the jump ran.
  const time = clockTime(attempt.created_at, Date.parse(attempt.created_at));
  // The code, with the reason unless it only says the code again ("endpoint answered 503"); or no answer, and why.
  const reason = attempt.status === 'failed' && attempt.error && attempt.error !== `endpoint answered ${attempt.response_code}` ? `: ${attempt.error}` : '';
  const answer = attempt.response_code === null || attempt.response_code === 0 ? noAnswer(attempt.error) : `${attempt.response_code}${reason}`;
  const answered = attempt.response_body?.trim();
  const body = answered ? `  "${answered.slice(0, 80)}${answered.length > 80 ? '…' : ''}"` : '';
  const line = sanitize(
    `${time} ${attemptFate(attempt).padEnd(9)} ${attempt.event} -> ${webhook.url}  ${answer}${body}  (${attempt.delivery_id} #${attempt.attempt})`,
  );
  return `${wrapLine(line, width, ATTEMPT_HANG, [`(${attempt.delivery_id} #${attempt.attempt})`])}\n`;
}

export async function run(options: SandboxStartOptions, deps: SandboxStartDeps): Promise<number> {
  const dataDir = options.dataDir ? resolve(options.dataDir) : undefined;
  const maxConnections = options.maxConnections ?? defaultMaxConnections();
  let sandbox: Sandbox;
  try {
    sandbox = createSandbox({
      dataDir,
      ...(options.manualClock ? { clock: new ManualSandboxClock(Date.now()) } : {}),
      ...(options.rateLimit ? { rateLimit: options.rateLimit } : {}),
      tokenTtlSeconds: options.tokenTtl,
      proxies: proxySettings(deps.env),
      policy: {
        retryBaseMs: options.retryBaseMs,
        maxAttempts: options.maxAttempts,
        platformName: options.platformName,
        timeoutMs: options.deliveryTimeoutMs,
        concurrencyPerWebhook: options.concurrencyPerWebhook,
        maxConnections,
        maxDeliveries: options.maxDeliveries,
      },
      onLocalFailure: sayOncePerReason(deps.stderr),
      onInternalError: (line) => deps.stderr.write(laidOut(deps.stderr, line)),
      onFirstDrop: () =>
        deps.stderr.write(
          laidOut(
            deps.stderr,
            `whsvc sandbox: more than ${counted(options.maxDeliveries, 'delivery')}: the oldest are dropped from now on, with their attempts (--max-deliveries N keeps more, --data-dir keeps them on disk)\n`,
          ),
        ),
      ...(options.quiet ? {} : { onAttempt: (a: AttemptRow, w: WebhookRow) => deps.stderr.write(attemptLine(a, w, terminalColumns(deps.stderr))) }),
    });
  } catch (error) {
    if (error instanceof FileError) throw error;
    throw new CliError(`cannot open the sandbox store in ${dataDir}: ${(error as Error).message}`);
  }
  let baseUrl: string;
  try {
    baseUrl = await sandbox.listen(options.port, options.host);
  } catch (error) {
    await sandbox.close();
    throw listenError(error, options.host, options.port);
  }

  const [readWrite, readOnly] = sandbox.clients;
  // With --json the credentials are in the line on stdout: stderr, often a CI log, gets none.
  deps.stderr.write(
    options.json
      ? `whsvc sandbox ready at ${baseUrl} (its credentials are in the JSON line on stdout)\n`
      : banner(sandbox, baseUrl, dataDir, { ...options, maxConnections }, terminalColumns(deps.stderr)),
  );

  if (options.json) {
    deps.jsonOut.line({
      base_url: baseUrl,
      inspector_url: sandbox.inspector.url(baseUrl),
      client_id: readWrite!.client_id,
      client_secret: readWrite!.client_secret,
      readonly_client_id: readOnly!.client_id,
      readonly_client_secret: readOnly!.client_secret,
      data_dir: dataDir ?? null,
    });
  }

  const exitCode = await deps.stopSignal;
  deps.stderr.write(laidOut(deps.stderr, 'whsvc sandbox: stopping once the sends under way end (Ctrl-C again quits now)\n'));
  await sandbox.close();
  return exitCode;
}

/** The profile the banner suggests logging in to the sandbox under. */
const SANDBOX_PROFILE = 'sandbox';

/** Where a banner line's value goes on, under the values: the key column's width. */
const BANNER_HANG = ' '.repeat(16);

/**
 * What `sandbox start` says when it is ready, on stderr, laid out for a terminal `width` wide: a value goes on under
 * the values; the inspector's address and a client secret stay whole (on a line of its own when they do not fit beside
 * their key: copied in one piece); a command is broken between its options as a shell reads it back (` \`).
 */
function banner(
  sandbox: Sandbox,
  baseUrl: string,
  dataDir: string | undefined,
  options: SandboxStartOptions & { maxConnections: number },
  width: number | undefined,
): string {
  const [readWrite, readOnly] = sandbox.clients;
  const kept = Number.isFinite(options.maxDeliveries) ? `the newest ${counted(options.maxDeliveries, 'delivery')}` : 'every delivery';
  const baseUrlFlag = baseUrl === DEFAULT_BASE_URL ? '' : ` --base-url ${baseUrl}`;
  // Its inspector's address (with its token), client ids and secrets are copied: whole (wrapLine), at a line's start
  // where they do not fit under the text.
  const row = (key: string, value: string) => wrapLine(`  ${key.padEnd(14)}${value}`, width, BANNER_HANG);
  const command = (key: string, value: string) => wrapCommand(`  ${key.padEnd(14)}${value}`, width, `${BANNER_HANG}  `);
  return [
    `whsvc sandbox ready at ${baseUrl}`,
    row('inspector', `${sandbox.inspector.url(baseUrl)}  (in a browser: every delivery, live)`),
    row('read-write', `client ${readWrite!.client_id}`),
    row('', `secret ${readWrite!.client_secret}`),
    row('read-only', `client ${readOnly!.client_id}`),
    row('', `secret ${readOnly!.client_secret}`),
    row('store', dataDir ? `${dataDir} (kept across restarts)` : `in memory, ${kept}; --data-dir DIR keeps it`),
    row('retries', `first after ${elapsed(options.retryBaseMs)}, doubling, ${counted(options.maxAttempts, 'attempt')} at most`),
    row('signature', `${signatureHeaderName(options.platformName)}: sha256=<hex>`),
    row('sends', `${options.maxConnections} at once, at most ${options.concurrencyPerWebhook} to one webhook`),
    row('timeout', `a send not answered within ${elapsed(options.deliveryTimeoutMs)} fails`),
    ...(options.rateLimit ? [row('rate limit', `${options.rateLimit} API requests a second per client, then 429`)] : []),
    ...(options.manualClock
      ? [row('clock', `manual, at ${new Date(sandbox.deliverer.now()).toISOString()}`), row('', '(time moves with `whsvc sandbox clock advance 1h`)')]
      : []),
    // A profile of its own: a login to the sandbox leaves the default profile (production, say) as it is.
    command('log in', `whsvc login --profile ${SANDBOX_PROFILE} --client-id ${readWrite!.client_id}${baseUrlFlag}`),
    row('', `then --profile ${SANDBOX_PROFILE}, or export WHSVC_PROFILE=${SANDBOX_PROFILE}`),
    command('trigger', `whsvc sandbox trigger invoice.paid${baseUrlFlag}`),
    '  Ctrl-C stops it',
    '',
  ].join('\n');
}
