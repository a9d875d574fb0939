import { Argument, Command } from '@commander-js/extra-typings';
import { getAttempt, getWebhook } from '../../api/endpoints.js';
import { ApiError } from '../../api/errors.js';
import { answeredStatus, attemptsOf, deliveryKey } from '../../api/log.js';
import type { Attempt, Webhook } from '../../api/shapes.js';
import { apiAction } from '../../cli/actions.js';
import type { CommandDeps } from '../../cli/context.js';
import { examples } from '../../cli/examples.js';
import { printJson } from '../../cli/output.js';
import { platformNameOption, resourceId } from '../../cli/parse.js';
import { requiredSecret } from '../../receiver/secrets.js';
import { STDIN } from '../../cli/stdin.js';
import { keyValues, sanitize, sanitizeBlock, shellWord } from '../../render/text.js';
import { alignedRows, laidOut, terminalColumns, wrapCommand, wrapLine } from '../../render/wrap.js';
import { clockTime, fateSentence, NO_ANSWER, noAnswer, statusWords } from '../../render/words.js';
import { deliveryFate } from '../../protocol/fate.js';
import { rebuiltDelivery } from '../../protocol/delivery.js';
import { headerShownName } from '../../protocol/headers.js';
import { checkSignature, type SignatureCheck } from '../../protocol/signature.js';
import { deliveryRecord, RecordFile } from '../../receiver/record-file.js';
import { checkUserFile } from '../../files/user-file.js';
import { statusLabel } from './shared/view.js';
import { fateAttempt } from './shared/fate.js';
import { numberText, numberValue } from '../../exact-json.js';
import { isLoopbackHost } from '../../net.js';

export const command = (runF = run) =>
  new Command('diagnose')
    .description('why a delivery failed and what to do now: its attempts, what was sent and answered, the failure in plain words, the next commands')
    .addArgument(new Argument('<delivery-id>', 'a delivery, or any of its attempts').argParser(resourceId('delivery')))
    .option('--secret-file <path>', "check the stored signature against the payload with the webhook's secret in this file (- reads stdin)")
    .option('--record <file>', 'append the delivery to FILE as a record, to send it to a local app with `whsvc replay FILE --to URL`')
    .addOption(platformNameOption("the service's platform name (sandbox start --platform-name): the headers shown and recorded are X-<name>-…"))
    .addHelpText(
      'after',
      examples('whsvc deliveries diagnose dlv_…', 'whsvc deliveries diagnose dlv_… --secret-file ./whsec.txt', 'whsvc deliveries diagnose dlv_… --json'),
    )
    .action(apiAction((deps, id, o) => runF({ id, secretFile: o.secretFile, record: o.record, platformName: o.platformName }, deps)));

export interface DiagnoseOptions {
  id: string;
  secretFile?: string | undefined;
  record?: string | undefined;
  /** The platform name the service sends the delivery headers with (X-<name>-Signature, …). */
  platformName: string;
}

/** What went wrong, in words a developer acts on. */
export interface Diagnosis {
  kind:
    | 'delivered'
    | 'pending'
    | 'refused'
    | 'host_not_found'
    | 'tls'
    | 'timed_out'
    | 'no_answer'
    | 'redirect'
    | 'signature_refused'
    | 'client_error'
    | 'server_error';
  summary: string;
  advice: string;
}

export async function run(options: DiagnoseOptions, deps: CommandDeps): Promise<number> {
  // A --record path the writer would refuse is refused first, before any request (exit 2, not a 404 or a 401 first).
  if (options.record !== undefined) checkUserFile(options.record, '--record');
  const facts = await gather(options, deps);
  const recordable = !('cannot' in facts.sent);
  if (options.record !== undefined && recordable) record(options.record, facts, options.platformName, deps.stderr);
  if (deps.json) printJson(deps, asJson(facts));
  else printFacts(deps, facts, options);
  if (options.record !== undefined && !deps.json) {
    deps.stderr.write(
      laidOut(
        deps.stderr,
        recordable
          ? `whsvc: ${facts.key} recorded to ${options.record}\n`
          : `whsvc: ${facts.key} not recorded: the service returned no payload or no signature for it\n`,
      ),
    );
  }
  return 0;
}

/** What diagnose finds out: the attempt asked for, its delivery, every attempt of it, the newest one whole, and what to make of it. */
type Facts = Awaited<ReturnType<typeof gather>>;

async function gather(options: DiagnoseOptions, deps: CommandDeps) {
  const secret = options.secretFile === undefined ? undefined : await requiredSecret({ secretFile: options.secretFile }, deps);
  const asked = await getAttempt(deps.api, options.id);
  const key = deliveryKey(asked);
  const webhook = asked.webhook_id === undefined ? undefined : await webhookOf(deps, asked.webhook_id);
  const attempts = asked.webhook_id === undefined ? [asked] : await attemptsOfDelivery(deps, asked.webhook_id, key, asked);
  const newest = attempts[attempts.length - 1]!;
  const latest = newest.id === asked.id ? asked : await getAttempt(deps.api, newest.id);
  const delivered = attempts.some((a) => a.status === 'delivered');
  // The attempt asked for as the service sent it (what --record keeps), and its signature checked against the payload.
  const sent = rebuiltDelivery(asked, key, senderOf(options));
  const signatureCheck: SignatureCheck =
    'cannot' in sent ? (typeof asked.signature === 'string' ? 'not_checked' : 'missing') : checkSignature(secret, sent.body, sent.signature);
  const diagnosis = diagnose(delivered ? { ...latest, status: 'delivered' } : latest, signatureCheck);
  const next = nextSteps(key, diagnosis, webhook, options, signatureCheck, asked.event);
  return { asked, key, webhook, attempts, newest, latest, delivered, sent, signatureCheck, diagnosis, next };
}

/** Who sends the delivery rebuilt from the log: the service's platform name, and diagnose as the user agent of a record. */
function senderOf(options: DiagnoseOptions) {
  return { platformName: options.platformName, userAgent: `whsvc/${WHSVC_VERSION} (deliveries diagnose --record)` };
}

/** The delivery appended to a record file (`replay` sends it as it was sent). */
function record(file: string, { asked, key, webhook, latest, sent, signatureCheck }: Facts, platformName: string, stderr: CommandDeps['stderr']): void {
  if ('cannot' in sent) return;
  const out = new RecordFile(file);
  if (out.repaired) stderr.write(laidOut(stderr, `whsvc: ${out.repaired}\n`));
  const url = webhook ? new URL(webhook.url) : undefined;
  out.append(
    deliveryRecord({
      receivedAt: asked.created_at,
      path: url ? url.pathname + url.search : '/',
      headers: sent.headers,
      body: Buffer.from(sent.body),
      signatureCheck,
      event: asked.event,
      deliveryId: key,
      attempt: asked.attempts ?? null,
      answered: answeredStatus(latest.response_code) ?? 0,
      platformName,
    }),
  );
  out.close();
}

/** The facts as one JSON document. */
function asJson({ asked, key, webhook, attempts, latest, delivered, signatureCheck, diagnosis, next }: Facts) {
  return {
    delivery_id: key,
    webhook: webhook ? { id: webhook.id, url: webhook.url } : asked.webhook_id ? { id: asked.webhook_id, url: null } : null,
    event: asked.event,
    status: delivered ? 'delivered' : latest.status,
    next_attempt_at: latest.next_attempt_at ?? null,
    attempts: attempts.map((a) => ({ id: a.id, attempt: a.attempts ?? null, status: a.status, response_code: a.response_code, created_at: a.created_at })),
    answer: { response_code: latest.response_code, failure_reason: latest.failure_reason ?? null, response_body: latest.response_body ?? null },
    payload: asked.payload ?? null,
    signature: asked.signature ?? null,
    signature_check: signatureCheck,
    diagnosis,
    next: next.map((step) => step.command),
  };
}

/** The facts for a person: the delivery, why and what to do, its attempts, what was sent and answered, the next commands. */
function printFacts(deps: CommandDeps, { asked, key, webhook, attempts, latest, signatureCheck, diagnosis, next }: Facts, options: DiagnoseOptions): void {
  const now = deps.serviceNow();
  const c = deps.colors;
  const words = (a: Attempt) => {
    const code = answeredStatus(a.response_code);
    return code === undefined ? (a.status === 'pending' ? 'under way' : NO_ANSWER) : String(code);
  };
  const width = terminalColumns(deps.stdout);
  // The attempts as aligned columns; a line too wide goes on under it, broken between words: its id whole, `no answer`
  // in one piece.
  const rows = alignedRows(
    attempts.map((a) => [`  #${numberText(a.attempts) ?? '?'}`, clockTime(a.created_at, now), statusLabel(a.status, c), words(a), c.dim(sanitize(a.id))]),
  );
  const timeline = rows.map((row, i) => wrapLine(row, width, '    ', [words(attempts[i]!)])).join('\n');
  const signatureWords = checkWords(signatureCheck, options.secretFile, c);
  deps.stdout.write(
    keyValues(
      [
        ['delivery', key],
        ['webhook', webhook ? `${webhook.id}  ${webhook.url}` : (asked.webhook_id ?? '(not named by the service)')],
        ['event', asked.event],
        ['status', { styled: fateLabel(attempts, latest, c, now) }],
        ...(latest.failure_reason ? [['failure', latest.failure_reason] as [string, string]] : []),
        ...(signatureWords === undefined ? [] : [['signature', { styled: signatureWords }] as [string, { styled: string }]]),
        ['why', diagnosis.summary],
        ['do', diagnosis.advice],
      ],
      c.dim,
      width,
    ),
  );
  deps.stdout.write(`${c.dim('attempts')}\n${timeline}\n`);
  // What was sent: the headers of the newest attempt, and the payload (its signature covers the compact JSON).
  const sent = rebuiltDelivery(latest, key, senderOf(options));
  if (!('cannot' in sent)) {
    const lines = Object.entries(sent.headers)
      .filter(([name]) => name !== 'user-agent')
      // The signature is shown, not copied (--record keeps the delivery whole): wider than the line, it is shortened.
      .map(([name, value]) =>
        wrapLine(`  ${headerShownName(name)}: ${sanitize(value)}`, width, '    ', [], { shorten: value === sent.signature ? [sanitize(value)] : [] }),
      );
    deps.stdout.write(`${c.dim('sent')}\n${lines.join('\n')}\n`);
  }
  if (asked.payload !== undefined) deps.stdout.write(`${c.dim('payload')}\n${sanitizeBlock(JSON.stringify(asked.payload, null, 2))}\n`);
  if (latest.response_body) deps.stdout.write(`${c.dim('answer')}\n${sanitizeBlock(latest.response_body)}\n`);
  // Each command on a line of its own, its reason above it: copied whole, at any width (wider than the line, broken
  // between its words as a shell reads it back: ` \`).
  const steps = next.map((step) => `${wrapLine(`  ${c.dim(`# ${step.why}`)}`, width, '  # ')}\n${wrapCommand(`  ${step.command}`, width, '    ')}`);
  deps.stdout.write(`${c.dim('next')}\n${steps.join('\n')}\n`);
}

/**
 * The delivery's fate as every command says it (`delivered by attempt 6 at 14:02:11`, `failed · no more retries`), from
 * its attempts, the newest as retrieved; the newest status alone when the service names no delivery (this attempt's
 * retries cannot be told from other deliveries').
 */
function fateLabel(attempts: Attempt[], latest: Attempt, c: CommandDeps['colors'], now: number): string {
  const newestFirst = [latest, ...attempts.slice(0, -1).reverse()].map(fateAttempt);
  const fate = deliveryFate(newestFirst, latest.delivery_id !== undefined);
  return fate ? statusLabel(fate.status, c, fateSentence(fate, now)) : statusLabel(latest.status, c, statusWords(latest.status, latest.next_attempt_at, now));
}

/** The signature row: the check in its word, and what it means; none when there was no secret to check with and nothing amiss. */
function checkWords(check: SignatureCheck, secretFile: string | undefined, c: CommandDeps['colors']): string | undefined {
  const file = secretFile === STDIN ? 'the secret from stdin' : sanitize(secretFile ?? '');
  switch (check) {
    case 'verified':
      return c.green(`verified: the signature matches the payload under ${file}: it holds this webhook's secret`);
    case 'mismatch':
      return c.red(`mismatch: the signature does NOT match the payload under ${file}: that is not this webhook's secret`);
    case 'missing':
      return c.yellow('missing: the service returned no signature for it');
    case 'malformed':
      return c.red('malformed: the stored signature is not sha256= and 64 hex digits');
    case 'not_checked':
      return secretFile === undefined ? undefined : c.yellow('not checked: the service returned no payload for it');
  }
}

async function webhookOf(deps: CommandDeps, id: string): Promise<Webhook | undefined> {
  try {
    return await getWebhook(deps.api, id);
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return undefined;
    throw error;
  }
}

/** Every attempt of the delivery, first to last, from its webhook's log (newest first, walked until the delivery's first attempt). */
export async function attemptsOfDelivery(deps: CommandDeps, webhookId: string, key: string, asked: Attempt): Promise<Attempt[]> {
  const found: Attempt[] = [];
  try {
    for await (const attempt of attemptsOf(deps.api, webhookId)) {
      if (deliveryKey(attempt) === key) found.push(attempt);
      if (attempt.id === key) break;
    }
  } catch (error) {
    if (!(error instanceof ApiError) || error.status !== 404) throw error;
  }
  if (found.length === 0) found.push(asked);
  return found.sort((a, b) => (numberValue(a.attempts) ?? 0) - (numberValue(b.attempts) ?? 0));
}

/** The newest attempt's outcome in plain words, and what to do about it. */
export function diagnose(attempt: Pick<Attempt, 'status' | 'response_code' | 'failure_reason'>, signatureCheck: SignatureCheck): Diagnosis {
  if (attempt.status === 'delivered') return { kind: 'delivered', summary: 'it was delivered: the endpoint answered 2xx', advice: 'nothing to do' };
  if (attempt.status === 'pending')
    return { kind: 'pending', summary: 'an attempt is under way', advice: 'wait for its answer (or see it live: whsvc deliveries tail)' };
  const code = answeredStatus(attempt.response_code);
  const reason = attempt.failure_reason ?? '';
  if (code === undefined) {
    if (/refused/.test(reason))
      return {
        kind: 'refused',
        summary: noAnswer('the connection was refused (nothing listens at that address and port)'),
        advice: "start your app, or check the webhook URL's host and port",
      };
    if (/not found/.test(reason))
      return {
        kind: 'host_not_found',
        summary: noAnswer("the URL's host name was not found"),
        advice: 'check the host name in the webhook URL (whsvc webhooks update ID --url …)',
      };
    if (/TLS|certificate/i.test(reason))
      return { kind: 'tls', summary: noAnswer(reason), advice: 'use http:// for a plain port, or a certificate the sender trusts' };
    if (/no answer within/.test(reason))
      return {
        kind: 'timed_out',
        summary: noAnswer(reason),
        advice: 'answer 2xx at once and do the work afterwards (a queue), so that the sender does not give up',
      };
    return { kind: 'no_answer', summary: noAnswer(reason), advice: 'check that your app is up and reachable at the webhook URL' };
  }
  if (code >= 300 && code < 400)
    return {
      kind: 'redirect',
      summary: `the endpoint answered ${code}, a redirect, which is not followed`,
      advice: 'give the webhook the final URL (whsvc webhooks update ID --url …)',
    };
  if (code === 401 || code === 403) {
    const usual =
      signatureCheck === 'verified'
        ? 'the signature matches the payload under your secret, so the usual cause is an app that verified re-serialized JSON instead of the raw body: verify the bytes as received'
        : "usually the app's signature check refused it: check that the app holds this webhook's secret (--secret-file checks it) and verifies the raw body";
    return { kind: 'signature_refused', summary: `the endpoint answered ${code}: your app refused it`, advice: usual };
  }
  if (code >= 400 && code < 500)
    return {
      kind: 'client_error',
      summary: `the endpoint answered ${code}: your app refused the delivery`,
      advice: 'see its answer below, and what the app expects of the payload',
    };
  return {
    kind: 'server_error',
    summary: `the endpoint answered ${code}: your app failed while handling it`,
    advice: 'see its logs; once fixed, retry the delivery',
  };
}

/** The commands to run next: retry it, reproduce it locally, replay it to a local app. */
function nextSteps(
  key: string,
  diagnosis: Diagnosis,
  webhook: Webhook | undefined,
  options: DiagnoseOptions,
  signatureCheck: SignatureCheck,
  event: string | undefined,
): Array<{ command: string; why: string }> {
  const id = shellWord(key);
  const steps: Array<{ command: string; why: string }> = [];
  if (diagnosis.kind !== 'delivered' && diagnosis.kind !== 'pending') steps.push({ command: `whsvc deliveries retry ${id}`, why: 'send it again now' });
  // whsvc cannot know where the user keeps the webhook's secret: the file given to this run, unless it was just found
  // not to hold it; else a placeholder.
  const secretFile =
    signatureCheck !== 'mismatch' && options.secretFile !== undefined && options.secretFile !== STDIN ? shellWord(options.secretFile) : 'SECRET_FILE';
  if (webhook) steps.push(receiverStep(webhook, secretFile, event));
  const file = shellWord(options.record ?? `${key}.ndjson`);
  if (options.record === undefined) steps.push({ command: `whsvc deliveries diagnose ${id} --record ${file}`, why: 'keep it, to replay it' });
  steps.push({ command: `whsvc replay ${file} --to http://localhost:3000${webhook ? '' : '/webhooks'}`, why: 'send it to your app, as it was sent' });
  return steps;
}

/**
 * What shows the webhook's endpoint at work: a local receiver at its port where the URL is this machine's (plain
 * http, as listen serves); elsewhere (`https://billing.example.com/hooks`) no listener here can receive its deliveries,
 * so the service's own test send of this delivery's event, its answer in the log, as the platform's test events are:
 * never a delivery signed here with the secret and sent past the log to what may be a live app.
 */
function receiverStep(webhook: Webhook, secretFile: string, event: string | undefined): { command: string; why: string } {
  const url = new URL(webhook.url);
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname))
    return { command: `whsvc listen --port ${url.port || '80'} --secret-file ${secretFile}`, why: 'a local receiver that shows and verifies what arrives' };
  const sample = event === undefined ? '' : ` --event ${shellWord(event)}`;
  return {
    command: `whsvc test ${shellWord(webhook.id)}${sample}`,
    why: 'the service sends the endpoint a sample of this event and logs its answer (your app acts on it as on any event)',
  };
}
