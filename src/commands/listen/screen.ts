import type { Transport } from '../../api/transport.js';
import type { Io } from '../../cli/deps.js';
import { withSignature } from '../../protocol/headers.js';
import { isMistakenTokenRequest, withoutCredentials } from '../../protocol/record-line.js';
import { sign } from '../../protocol/signature.js';
import { isDelivered } from '../../protocol/status.js';
import type { Receipt } from '../../receiver/receive.js';
import { routeFor, shownUrl, type ForwardRoute } from '../../receiver/routes.js';
import { currentSecrets, describeSecrets, type SecretSource } from '../../receiver/secrets.js';
import { sendAsReceived } from '../../receiver/send-on.js';
import type { Colors } from '../../render/colors.js';
import { sanitize } from '../../render/text.js';
import { clockTime, elapsed, noAnswer } from '../../render/words.js';
import { bodyLines, type FateStep, fateLines, headerLines, heading, pairLines } from '../../screen/pane.js';
import { ScreenSession, type ScreenSource } from '../../screen/screen.js';
import type { PaneLine } from '../../screen/view.js';
import { type AnswerWords, receiptLayout, receiptLine, ruleWords } from './receipt.js';

// listen -i: the deliveries listen receives, on the interactive screen (src/screen/), each row the line plain listen
// prints for it. The terminal's code is loaded only when it starts (src/screen/screen.ts).

/** What listen's screen works with, known once listen listens. */
export interface ListenScreenContext {
  url: string;
  words: AnswerWords;
  routes: ForwardRoute[];
  secrets: SecretSource[];
  send: Transport;
  forwardTimeoutMs?: number | undefined;
  colors: Colors;
}

type Pair = Parameters<typeof pairLines>[0][number];

/** A request listen answered, the nth. */
interface Received {
  n: number;
  receipt: Receipt;
  /** Its body as text; none for a token request sent here by mistake (it holds a client secret). */
  body: string | undefined;
}

/** The screen of one listen: its stderr held while it is up; the exit code of how the user left it. */
export class ListenScreen {
  private readonly session: ScreenSession<Received>;
  private count = 0;

  constructor(io: Pick<Io, 'stdin' | 'stdout' | 'stderr'>) {
    this.session = new ScreenSession(io);
  }

  get stderr(): Io['stderr'] {
    return this.session.stderr;
  }

  /** Resolves with listen's code for it: `q` a clean stop (0), Ctrl-C 130. */
  get left(): Promise<number> {
    return this.session.left.then((leaving) => (leaving === 'interrupt' ? 130 : 0));
  }

  start(context: ListenScreenContext): Promise<void> {
    return this.session.start(new ListenSource(context, () => this.session.items()), context.colors);
  }

  show(receipt: Receipt): void {
    this.count += 1;
    const body = isMistakenTokenRequest(receipt.body, receipt.decision.signatureCheck) ? undefined : receipt.body.toString('utf8');
    this.session.put(String(this.count), { n: this.count, receipt, body });
  }

  stop(): void {
    this.session.stop();
  }
}

/**
 * Why `r` does not send a delivery on: with a secret given, one whose signature did not verify (signing it again
 * would have the app take what listen refused); undefined when it is sent (verified, or no secret given: then as
 * received, unchecked, as plain listen forwards it).
 */
export function notSentAgain(check: Receipt['decision']['signatureCheck'], secretGiven: boolean): string | undefined {
  if (!secretGiven || check === 'verified') return undefined;
  return `not sent again: its signature is ${check.replace('_', ' ')}, and r sends on only a delivery whose signature verified`;
}

class ListenSource implements ScreenSource<Received> {
  private layout: { columns: number; layout: ReturnType<typeof receiptLayout> } | undefined;
  constructor(
    private readonly context: ListenScreenContext,
    private readonly received: () => readonly Received[],
  ) {}

  get sendsAgain(): boolean {
    return this.context.routes.length > 0;
  }

  heading(): string {
    const { url, routes } = this.context;
    return `listen ${url}${routes.length ? ` -> ${routes.map((route) => shownUrl(route.url)).join(', ')}` : ''}`;
  }

  line({ receipt }: Received, columns: number): string {
    const { words, routes, colors } = this.context;
    if (this.layout?.columns !== columns) {
      this.layout = {
        columns,
        layout: receiptLayout(
          words,
          routes.map((route) => route.label),
          columns,
        ),
      };
    }
    return receiptLine(receipt, words, colors, this.layout.layout).replace(/\n$/, '');
  }

  describe({ receipt, body }: Received) {
    const d = receipt.decision;
    const statuses = [d.signatureCheck, String(d.status), ...(receipt.forwarded?.status ? [String(receipt.forwarded.status)] : [])];
    if (d.signatureCheck === 'not_checked') statuses.push('unchecked');
    return { event: d.event ?? '', statuses, id: d.deliveryId ?? '', body: body ?? '' };
  }

  title({ receipt }: Received): string {
    const d = receipt.decision;
    return `${sanitize(d.deliveryId ?? '(no delivery id)')}${d.attempt ? ` #${sanitize(d.attempt)}` : ''}  ${sanitize(d.event ?? '(no event)')}`;
  }

  body({ body }: Received): string | undefined {
    return body;
  }

  /** Its body twice: the bytes received (for `r`) and their text (for the filter and the pane). */
  weigh({ receipt, body }: Received): number {
    return receipt.body.length + (body?.length ?? 0);
  }

  async details(item: Received): Promise<PaneLine[]> {
    const { receipt, body } = item;
    const d = receipt.decision;
    const f = receipt.forwarded;
    const at = receipt.receivedAt.toISOString();
    const pairs: Pair[] = [
      ['delivery', `${sanitize(d.deliveryId ?? '(none: no delivery id header)')}${d.attempt ? `, attempt ${sanitize(d.attempt)}` : ''}`],
      ['event', sanitize(d.event ?? '(none)')],
      ['received', `${clockTime(at, Date.now(), true)} (${at}) at ${sanitize(receipt.path)}`],
      ['signature', this.signatureWords(receipt), d.signatureCheck === 'verified' ? 'good' : 'bad'],
      ['answer', `${d.status} ${ruleWords(d.rule, this.context.words, d.attemptNumber)} in ${elapsed(receipt.tookMs)}`, isDelivered(d.status) ? 'good' : 'bad'],
    ];
    if (f) pairs.push(['app', `${f.status ?? noAnswer(f.error)} from ${sanitize(f.url)} (route ${sanitize(f.route)})`, isDelivered(f.status) ? 'good' : 'bad']);
    if (receipt.senderLeftAfterMs !== undefined)
      pairs.push(['too late', `the sender left after ${elapsed(receipt.senderLeftAfterMs)}, before the answer`, 'bad']);
    // The body first after the facts: what a person opens a delivery for, in view at 80x24.
    return [
      ...pairLines(pairs),
      heading('body'),
      ...(body === undefined ? [{ text: '  (a token request, with a client secret: not shown)', tone: 'dim' as const }] : bodyLines(body)),
      heading('attempts'),
      ...fateLines(this.fate(item)),
      ...(f?.body ? [heading("the app's answer"), ...bodyLines(f.body)] : []),
      heading('headers'),
      ...headerLines(withoutCredentials(receipt.headers)),
    ];
  }

  async diagnosis({ receipt }: Received): Promise<PaneLine[]> {
    const d = receipt.decision;
    const f = receipt.forwarded;
    const lines: Pair[] = [['signature', this.signatureWords(receipt), d.signatureCheck === 'verified' ? 'good' : 'bad']];
    const why = {
      signature: 'refused (400): with a secret given, listen takes only a verified signature; the sender retries it',
      replay: 'refused (400): this delivery id and attempt came before with this body, or with another: a replay, not a retry',
      event_mismatch: 'refused (400): the event header names another event than the signed body: the headers were changed on the way',
      fail_first: `failed on purpose (--fail-first ${this.context.words.failFirst}): the sender retries it, and a later attempt is taken`,
      fail_rate: `failed on purpose (--fail-rate ${this.context.words.failRate}, --seed ${this.context.words.seed}): the sender retries it`,
      forward: f
        ? f.status === null
          ? `your app did not answer (${noAnswer(f.error)}): listen answered 502, and the sender retries it; start your app, or check --forward-to`
          : isDelivered(f.status)
            ? `your app took it (${f.status}), and listen answered the same`
            : `your app answered ${f.status}, and listen answered the same: the sender retries it; the app's answer says why`
        : 'forwarded',
      respond_status: isDelivered(d.status) ? 'taken' : `answered ${d.status} (--respond-status): the sender counts it as failed`,
      not_recorded: `not recorded (--record could not write it): answered ${d.status}, so the sender tries again`,
    }[d.rule];
    lines.push(['answer', `${d.status}: ${why}`, isDelivered(d.status) ? 'good' : 'bad']);
    if (d.repeat === 'retry') lines.push(['repeat', "a retry of a delivery already received (a higher attempt, the same body): the sender's own"]);
    if (d.repeat === 'same_body') lines.push(['repeat', `the same body as ${sanitize(d.repeatOf)}: two events can have identical payloads`]);
    if (receipt.senderLeftAfterMs !== undefined) {
      lines.push([
        'too late',
        `the sender gave up after ${elapsed(receipt.senderLeftAfterMs)}: it counts this attempt as failed, whatever was answered`,
        'bad',
      ]);
    }
    return pairLines(lines);
  }

  async sendAgain({ receipt, body }: Received): Promise<string> {
    const d = receipt.decision;
    const id = sanitize(d.deliveryId ?? 'this request');
    const route = routeFor(this.context.routes, d.event);
    if (!route) {
      return this.context.routes.length === 0
        ? 'r sends a delivery again to your app: start listen with --forward-to URL'
        : `no --forward-to route takes ${sanitize(d.event ?? 'a request with no event')}: nothing sent`;
    }
    if (body === undefined) return 'a token request is never sent on';
    const refused = notSentAgain(d.signatureCheck, this.context.secrets.length > 0);
    if (refused) return `${id}: ${refused}`;
    // Verified, it is signed again with listen's secret: the app, which verifies with it, takes it as the service's.
    const secret = currentSecrets(this.context.secrets)[0];
    const headers = secret === undefined ? receipt.headers : withSignature(receipt.headers, sign(secret.secret, receipt.body));
    const answer = await sendAsReceived(this.context.send, route.url, headers, receipt.body, receipt.path, this.context.forwardTimeoutMs);
    const how = secret === undefined ? 'as it came' : `signed with ${secret.name}`;
    const outcome = answer.status === null ? noAnswer(answer.error) : `app ${answer.status}`;
    return `${outcome}: ${id} sent again to ${shownUrl(route.url)} (${how})`;
  }

  /** The verdict in words, and which secret verified it (by file, never the secret). */
  private signatureWords(receipt: Receipt): string {
    const d = receipt.decision;
    const secrets = this.context.secrets;
    switch (d.signatureCheck) {
      case 'verified': {
        const by = secrets.find((source) => source.name === d.verifiedBy);
        return `verified, with ${by ? by.describe : sanitize(d.verifiedBy ?? 'the secret')}`;
      }
      case 'mismatch':
        return `mismatch: the body does not carry the signature under ${describeSecrets(secrets)} (another secret, or the body changed on the way)`;
      case 'missing':
        return 'missing: no signature header (not sent by the service, or a proxy dropped it)';
      case 'malformed':
        return 'malformed: the signature header is not sha256= and 64 hex digits';
      case 'not_checked':
        return 'not checked: no secret given (--secret-file FILE checks it)';
    }
  }

  /** Every attempt of its delivery listen received, first to last. */
  private fate({ receipt }: Received): FateStep[] {
    const id = receipt.decision.deliveryId;
    const same =
      id === undefined
        ? [receipt]
        : this.received()
            .filter((r) => r.receipt.decision.deliveryId === id)
            .map((r) => r.receipt);
    return same.map((r) => ({
      attempt: sanitize(r.decision.attempt ?? '?'),
      at: clockTime(r.receivedAt.toISOString(), Date.now()),
      outcome: `-> ${r.decision.status} ${ruleWords(r.decision.rule, this.context.words, r.decision.attemptNumber)}`,
      good: isDelivered(r.decision.status),
    }));
  }
}
