import { getAttempt, getWebhook, retryDelivery } from '../../../api/endpoints.js';
import { ApiError } from '../../../api/errors.js';
import { answeredStatus, deliveryKey } from '../../../api/log.js';
import type { Attempt } from '../../../api/shapes.js';
import { defaultTransport, type Transport } from '../../../api/transport.js';
import { numberText } from '../../../exact-json.js';
import { rebuiltDelivery } from '../../../protocol/delivery.js';
import { checkSignature } from '../../../protocol/signature.js';
import { isDelivered } from '../../../protocol/status.js';
import { routeFor, shownUrl, type ForwardRoute } from '../../../receiver/routes.js';
import type { SecretSource } from '../../../receiver/secrets.js';
import { PLAIN, type Colors } from '../../../render/colors.js';
import type { OutputStream } from '../../../render/stream.js';
import { sanitize } from '../../../render/text.js';
import { clockTime, noAnswer, statusWords } from '../../../render/words.js';
import { bodyLines, type FateStep, fateLines, headerLines, heading, pairLines } from '../../../screen/pane.js';
import { ScreenSession, type ScreenSource } from '../../../screen/screen.js';
import type { PaneLine } from '../../../screen/view.js';
import { attemptsOfDelivery, run as diagnoseRun } from '../diagnose.js';
import { attemptCode, RESPONSE, responseWords } from '../shared/view.js';
import type { CommandDeps } from '../../../cli/context.js';
import type { Change } from './follow.js';
import { retrieveDelivery, sendRetrieved, TAIL_USER_AGENT } from './forward.js';
import { type ForwardLine, TailPrinter } from './printer.js';
import { attemptWords, HighestAttempts } from '../shared/fate.js';

// deliveries tail -i: the attempts of the log on the interactive screen (src/screen/), each row the line plain tail
// prints for it, changed in place when its status changes. The terminal's code is loaded only when it starts (src/screen/screen.ts).

/**
 * The headers of a delivery tail rebuilt from the log, under a heading that says so: the log keeps none of the
 * service's, so these are tail's (its user agent, the attempt's time as the Date), as --forward-to sends them.
 */
export function rebuiltHeaderLines(headers: Readonly<Record<string, string>>, forwarding: boolean): PaneLine[] {
  const title = forwarding ? 'headers (rebuilt by tail, as --forward-to sends them: the log keeps none)' : 'headers (rebuilt by tail: the log keeps none)';
  return [heading(title), ...headerLines(headers)];
}

/** What of tail's flags its screen reads (tail.ts's TailOptions). */
interface TailScreenOptions {
  webhookIds?: string[] | undefined;
  forwardTo?: ForwardRoute[] | undefined;
  secretFile?: string | undefined;
  platformName: string;
  forwardTimeoutMs?: number | undefined;
}

/** What of tail's dependencies its screen uses (tail.ts's TailDeps). */
type TailScreenDeps = CommandDeps & { transport?: Transport | undefined };

/** An attempt of the log, as last seen, and what the screen learnt of it. */
interface Followed {
  change: Change;
  /** What --forward-to's app answered, when this delivery was forwarded. */
  forward?: ForwardLine | undefined;
  /** Its body, once opened (Enter). */
  body?: string | undefined;
}

/** The most forwards remembered for their rows (a forward is of a delivery seen lately). */
const FORWARDS_KEPT = 10_000;

/** tail's screen: it takes the printer's place (each change, each forward), and holds its stderr while it is up. */
export class TailScreen {
  private readonly session: ScreenSession<Followed>;
  private readonly forwards = new Map<string, ForwardLine>();
  private readonly latest = new HighestAttempts();
  private leaving: 'quit' | 'interrupt' | undefined;

  constructor(
    private readonly deps: TailScreenDeps,
    private readonly options: TailScreenOptions,
    private readonly secret: SecretSource | undefined,
  ) {
    this.session = new ScreenSession(deps);
    void this.session.left.then((leaving) => (this.leaving = leaving));
  }

  get stderr(): OutputStream {
    return this.session.stderr;
  }

  /** Resolves when the user leaves the screen (`q`, Ctrl-C): tail stops as at Ctrl-C. */
  get left(): Promise<unknown> {
    return this.session.left;
  }

  /** tail's code, or 130 when the user left with Ctrl-C. */
  exitCode(code: number): number {
    return this.leaving === 'interrupt' ? 130 : code;
  }

  start(colors: Colors): Promise<void> {
    return this.session.start(new TailSource(this.deps, this.options, this.secret, colors, (key) => this.forwards.get(key), this.latest), colors);
  }

  /** The attempts of a whole poll, before its changes: a retry among them makes the attempt before it not the newest. */
  note(changes: Change[]): void {
    for (const change of changes) this.latest.note(change.attempt);
  }

  change(change: Change): void {
    this.session.put(change.attempt.id, { change, forward: this.forwards.get(deliveryKey(change.attempt)) });
  }

  forward(change: Change, key: string, _route: ForwardRoute, outcome: ForwardLine): void {
    this.forwards.set(key, outcome);
    if (this.forwards.size > FORWARDS_KEPT) this.forwards.delete(this.forwards.keys().next().value!);
    this.session.put(change.attempt.id, { change, forward: outcome });
  }

  stop(): void {
    this.session.stop();
  }
}

/** What tail -i's screen shows: each attempt's line, and its detail (exported for its tests). */
export class TailSource implements ScreenSource<Followed> {
  private printer: { columns: number; printer: TailPrinter; line: string } | undefined;
  private readonly bodies = new Map<string, string>();
  constructor(
    private readonly deps: TailScreenDeps,
    private readonly options: TailScreenOptions,
    private readonly secret: SecretSource | undefined,
    private readonly colors: Colors,
    private readonly forwardOf: (key: string) => ForwardLine | undefined,
    private readonly latest: HighestAttempts,
  ) {}

  get sendsAgain(): boolean {
    return (this.options.forwardTo?.length ?? 0) > 0;
  }

  heading(): string {
    const ids = this.options.webhookIds;
    return `tail ${this.deps.api.baseUrl}  ${ids ? ids.join(', ') : 'every webhook'}`;
  }

  /** The line plain tail prints for the change, from a printer laid out for the width. */
  line({ change }: Followed, columns: number): string {
    if (this.printer?.columns !== columns) {
      const stdout = { isTTY: true, columns, write: (line: string) => (this.printer!.line = line) };
      const printer = new TailPrinter({ ...this.deps, stdout, colors: this.colors, json: false }, this.options.forwardTo ?? [], this.latest);
      this.printer = { columns, printer, line: '' };
    }
    this.printer.printer.change(change);
    return this.printer.line.replace(/\n$/, '');
  }

  describe({ change, forward }: Followed) {
    const a = change.attempt;
    const statuses = [a.status, attemptCode(a)];
    if (forward?.kind === 'answered') statuses.push(String(forward.status));
    return { event: a.event, statuses, id: `${deliveryKey(a)} ${a.id}`, body: this.bodies.get(a.id) ?? '' };
  }

  title({ change }: Followed): string {
    const a = change.attempt;
    return `${sanitize(deliveryKey(a))} #${numberText(a.attempts) ?? '?'}  ${sanitize(a.event)}`;
  }

  body({ change }: Followed): string | undefined {
    return this.bodies.get(change.attempt.id);
  }

  async details({ change }: Followed): Promise<PaneLine[]> {
    const record = await getAttempt(this.deps.api, change.attempt.id);
    const key = deliveryKey(record);
    const now = this.deps.serviceNow();
    const sent = rebuiltDelivery(record, key, { platformName: this.options.platformName, userAgent: TAIL_USER_AGENT });
    if (!('cannot' in sent)) this.bodies.set(change.attempt.id, sent.body);
    const code = answeredStatus(record.response_code);
    const pairs: Array<Parameters<typeof pairLines>[0][number]> = [
      ['delivery', `${sanitize(key)}, attempt ${numberText(record.attempts) ?? '?'} (${sanitize(record.id)})`],
      ['webhook', sanitize(record.webhook_id ?? change.webhookId)],
      ['event', sanitize(record.event)],
      ['created', `${clockTime(record.created_at, now)} (${sanitize(record.created_at)})`],
      ['status', statusWords(record.status, record.next_attempt_at, now), record.status === 'delivered' ? 'good' : 'bad'],
      [RESPONSE, responseWords(record), isDelivered(code) ? 'good' : 'bad'],
      ...(record.failure_reason && code !== undefined ? [['failure', sanitize(record.failure_reason)] as [string, string]] : []),
      ['signature', this.signatureWords(sent), this.signatureTone(sent)],
    ];
    const forward = this.forwardOf(key);
    if (forward)
      pairs.push([
        'app',
        forward.kind === 'answered' ? `${forward.status} (--forward-to)` : noAnswer(forward.error),
        forward.kind === 'answered' && isDelivered(forward.status) ? 'good' : 'bad',
      ]);
    // The body first after the facts, as listen's screen has it.
    return [
      ...pairLines(pairs),
      heading('body'),
      ...('cannot' in sent ? [{ text: `  ${sent.cannot}`, tone: 'dim' as const }] : bodyLines(sent.body)),
      heading('attempts'),
      ...fateLines(await this.fate(record, key)),
      ...(record.response_body ? [heading('the answer'), ...bodyLines(record.response_body)] : []),
      ...('cannot' in sent ? [] : rebuiltHeaderLines(sent.headers, this.sendsAgain)),
    ];
  }

  /** `deliveries diagnose` for it, its lines as that command prints them. */
  async diagnosis({ change }: Followed): Promise<PaneLine[]> {
    let text = '';
    const stdout = { isTTY: false, write: (chunk: string) => (text += chunk) };
    await diagnoseRun(
      { id: change.attempt.id, platformName: this.options.platformName, secretFile: this.options.secretFile },
      { ...this.deps, stdout, colors: PLAIN, json: false },
    );
    return text
      .trimEnd()
      .split('\n')
      .map((line) => ({ text: line, hang: /^\S+ +/.exec(line)?.[0].length }));
  }

  async sendAgain({ change }: Followed): Promise<string> {
    const a = change.attempt;
    const route = routeFor(this.options.forwardTo ?? [], a.event);
    if (!route) {
      return this.options.forwardTo?.length
        ? `no --forward-to route takes ${sanitize(a.event)}: nothing sent`
        : 'r sends a delivery again to your app: start tail with --forward-to URL (R retries it through the service)';
    }
    const target = {
      platform: this.options.platformName,
      secret: this.secret,
      send: this.deps.transport ?? defaultTransport(this.deps.env),
      timeoutMs: this.options.forwardTimeoutMs,
    };
    const retrieved = await retrieveDelivery(this.deps.api, target, a);
    if ('kind' in retrieved) return `cannot send ${sanitize(deliveryKey(a))} again: ${retrieved.why}`;
    const path = await getWebhook(this.deps.api, change.webhookId).then(
      (webhook) => new URL(webhook.url).pathname,
      () => '/',
    );
    const outcome = await sendRetrieved(target, new URL(route.url), path, retrieved);
    const said = outcome.kind === 'answered' ? `app ${outcome.status}` : noAnswer(outcome.error);
    return `${said}: ${sanitize(deliveryKey(a))} sent again to ${shownUrl(route.url)} (signature ${outcome.signatureCheck.replace('_', ' ')})`;
  }

  /** `R`: a new attempt through the service, which the log shows at the next poll. */
  async retry({ change }: Followed): Promise<string> {
    const key = sanitize(deliveryKey(change.attempt));
    let attempt: Attempt;
    try {
      attempt = await retryDelivery(this.deps.api, change.attempt.id);
    } catch (error) {
      if (error instanceof ApiError && error.status === 409) return `${key} is delivered already: the service retries a failed or pending one (409)`;
      throw error;
    }
    return `retried ${key}: attempt ${numberText(attempt.attempts) ?? '?'} ${statusWords(attempt.status, attempt.next_attempt_at)}, ${attemptCode(attempt)}`;
  }

  /** Every attempt of the delivery in the log, first to last (what diagnose reads). */
  private async fate(record: Attempt, key: string): Promise<FateStep[]> {
    const now = this.deps.serviceNow();
    const attempts = record.webhook_id === undefined ? [record] : await attemptsOfDelivery(this.deps, record.webhook_id, key, record);
    // First to last, read from the log: the last is the delivery's newest attempt, and says its fate, as list and show do.
    return attempts.map((a, i) => ({
      attempt: numberText(a.attempts) ?? '?',
      at: clockTime(a.created_at, now),
      outcome: `${attemptWords(a, record.webhook_id !== undefined && i === attempts.length - 1, now)}  ${attemptCode(a)}`,
      good: a.status === 'delivered',
    }));
  }

  private signatureWords(sent: ReturnType<typeof rebuiltDelivery>): string {
    if ('cannot' in sent) return 'not checked: the service returned no payload or signature for it';
    const secret = this.secret?.current();
    if (secret === undefined) return `${sanitize(sent.signature)} (not checked: --secret-file FILE checks it)`;
    const check = checkSignature(secret, sent.body, sent.signature);
    return check === 'verified'
      ? `verified, with ${this.secret!.describe}`
      : `${check}: the stored signature does not match the body under ${this.secret!.describe}`;
  }

  private signatureTone(sent: ReturnType<typeof rebuiltDelivery>): PaneLine['tone'] {
    const secret = this.secret?.current();
    if ('cannot' in sent || secret === undefined) return 'dim';
    return checkSignature(secret, sent.body, sent.signature) === 'verified' ? 'good' : 'bad';
  }
}
