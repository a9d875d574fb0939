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
import { sanitize } from '../../render/text.js';
import { signatureHeaderName } from '../../protocol/headers.js';

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
      `whsvc sandbox: a send could not start: ${reason}; such sends wait and are tried again, never counted as the endpoint's failure (raise the limit with ulimit -n, or lower --max-connections)\n`,
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

/** One line per attempt on stderr: what was sent where, and what came of it (the endpoint's answer, cut short). */
function attemptLine(attempt: AttemptRow, webhook: WebhookRow): string {
  // The sandbox's time: with a manual clock, when the attempt was due, not when the jump ran.
  const time = clockTime(attempt.created_at, Date.parse(attempt.created_at));
  // The code, with the reason unless it only says the code again ("endpoint answered 503"); or no answer, and why.
  const reason = attempt.status === 'failed' && attempt.error && attempt.error !== `endpoint answered ${attempt.response_code}` ? `: ${attempt.error}` : '';
  const answer = attempt.response_code === null || attempt.response_code === 0 ? noAnswer(attempt.error) : `${attempt.response_code}${reason}`;
  const answered = attempt.response_body?.trim();
  const body = answered ? `  "${answered.slice(0, 80)}${answered.length > 80 ? '…' : ''}"` : '';
  return (
    sanitize(`${time} ${attemptFate(attempt).padEnd(9)} ${attempt.event} -> ${webhook.url}  ${answer}${body}  (${attempt.delivery_id} #${attempt.attempt})`) +
    '\n'
  );
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
      onInternalError: (line) => deps.stderr.write(line),
      onFirstDrop: () =>
        deps.stderr.write(
          `whsvc sandbox: more than ${options.maxDeliveries} deliveries: the oldest are dropped from now on, with their attempts (--max-deliveries N keeps more, --data-dir keeps them on disk)\n`,
        ),
      ...(options.quiet ? {} : { onAttempt: (a: AttemptRow, w: WebhookRow) => deps.stderr.write(attemptLine(a, w)) }),
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
      : banner(sandbox, baseUrl, dataDir, { ...options, maxConnections }),
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
  deps.stderr.write('whsvc sandbox: stopping once the sends under way end (Ctrl-C again quits now)\n');
  await sandbox.close();
  return exitCode;
}

/** The profile the banner suggests logging in to the sandbox under. */
const SANDBOX_PROFILE = 'sandbox';

/** What `sandbox start` says when it is ready, on stderr. Each line fits 80 columns (with the default address), a secret on a line of its own so that it is copied whole. */
function banner(sandbox: Sandbox, baseUrl: string, dataDir: string | undefined, options: SandboxStartOptions & { maxConnections: number }): string {
  const [readWrite, readOnly] = sandbox.clients;
  const kept = Number.isFinite(options.maxDeliveries) ? `the newest ${options.maxDeliveries} deliveries` : 'every delivery';
  const baseUrlFlag = baseUrl === DEFAULT_BASE_URL ? '' : ` --base-url ${baseUrl}`;
  return [
    `whsvc sandbox ready at ${baseUrl}`,
    `  inspector     ${sandbox.inspector.url(baseUrl)}  (in a browser: every delivery, live)`,
    `  read-write    client ${readWrite!.client_id}`,
    `                secret ${readWrite!.client_secret}`,
    `  read-only     client ${readOnly!.client_id}`,
    `                secret ${readOnly!.client_secret}`,
    `  store         ${dataDir ? `${dataDir} (kept across restarts)` : `in memory, ${kept} (--data-dir DIR keeps it)`}`,
    `  retries       first after ${elapsed(options.retryBaseMs)}, doubling, ${options.maxAttempts} attempts at most`,
    `  signature     ${signatureHeaderName(options.platformName)}: sha256=<hex>`,
    `  sends         ${options.maxConnections} at once, at most ${options.concurrencyPerWebhook} to one webhook`,
    `  timeout       a send not answered within ${elapsed(options.deliveryTimeoutMs)} fails`,
    ...(options.rateLimit ? [`  rate limit    ${options.rateLimit} API requests a second per client, then 429`] : []),
    ...(options.manualClock
      ? [`  clock         manual, at ${new Date(sandbox.deliverer.now()).toISOString()}`, '                (time moves with `whsvc sandbox clock advance 1h`)']
      : []),
    // A profile of its own: a login to the sandbox leaves the default profile (production, say) as it is.
    `  log in        whsvc login --profile ${SANDBOX_PROFILE} --client-id ${readWrite!.client_id}${baseUrlFlag}`,
    `                then --profile ${SANDBOX_PROFILE}, or export WHSVC_PROFILE=${SANDBOX_PROFILE}`,
    `  trigger       whsvc sandbox trigger invoice.paid${baseUrlFlag}`,
    '  Ctrl-C stops it',
    '',
  ].join('\n');
}
