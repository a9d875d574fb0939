import { randomBytes } from 'node:crypto';
import { samplePayload } from '../../protocol/catalog.js';
import { LARGEST_PAYLOAD_BYTES, madeDelivery, type MadeDelivery } from '../../protocol/delivery.js';
import { deliveryHeaderNames, signatureHeaderName } from '../../protocol/headers.js';
import { checkSignatureWith, digestHex, SIGNATURE_PREFIX, type SignatureCheck } from '../../protocol/signature.js';
import { isDelivered } from '../../protocol/status.js';
import { counted, sanitize } from '../../render/text.js';
import { BROKEN_ANSWER_CODE } from '../../net.js';
import type { SendResult } from '../../receiver/send-on.js';
import { elapsed, NO_ANSWER, noAnswer } from '../../render/words.js';
import {
  type CauseFound,
  KEY_CONVENTION,
  LOGIN_FIX,
  payloadRefused,
  RAW_BODY_FIX,
  refusedAlike,
  type Suspect,
  type SuspectOf,
  suspectsOfRefusal,
  suspectsOfReserialization,
} from './causes.js';

/**
 * The checks of `check-receiver`: what each sends and how it judges what came
 * back, apart from any network (the command sends; tests judge answers made
 * up). Each check's deliveries are made as the service makes them; the ways
 * they are wrong on purpose are the ways a forger's would be.
 */

/** What the checks are made from. */
export interface BatteryContext {
  /** The receiver's secrets, named by their files: deliveries are signed with the first; each must verify. */
  secrets: ReadonlyArray<{ name: string; secret: string }>;
  /** The event types it must take. */
  events: readonly string[];
  platformName: string;
  userAgent: string;
  /** When the deliveries are dated. */
  now: Date;
  /** The time an answer must come within: the service's limit, or --request-timeout. */
  limitMs: number;
  /** --effects watches check 7's repeat: its words then say what the command saw, not that a second effect is unseen. */
  effectsWatched?: boolean;
}

/** One request a check sends: the delivery, and what it is in words. */
export interface Probe {
  what: string;
  delivery: MadeDelivery;
  /** What a receiver holding the secrets given finds of its signature (signature_check). */
  signatureCheck: SignatureCheck;
  /** The secret it is signed with, by its file; null when it is not signed with one of the receiver's. */
  signedWith: string | null;
  /** The likely cause it tests (causes.ts): sent after a check failed, only until one is taken. */
  suspect?: Suspect;
  /**
   * A control among the suspects, signed with a secret made up for it: the file of the secret whose valid deliveries'
   * answer it is compared with. Another answer than theirs means their signature verified.
   */
  controls?: string;
}

/** A probe sent, and what came back, in how long. */
export interface Outcome {
  probe: Probe;
  result: SendResult;
  ms: number;
}

/**
 * How a check ended: passed, failed, not run (the battery stopped before it), or inconclusive (it ran, and what came
 * back shows neither: an --effects command that could not see the app's work).
 */
export type CheckResult = 'pass' | 'fail' | 'not_run' | 'inconclusive';

/** A check's verdict: its result, what came back, and when it did not pass the likely cause and the fix. */
export interface Verdict {
  result: CheckResult;
  summary: string;
  cause?: string | undefined;
  fix?: string | undefined;
  /** The cause, tested: a delivery signed as it predicts was taken, or the control told it. Said here, once. */
  found?: CauseFound | undefined;
  /** The cause was seen, not inferred: --effects saw the app act on a repeat again. */
  seen?: true | undefined;
  /** The number of the check whose cause explains this failure too, said there. */
  explainedBy?: number | undefined;
}

export interface Check {
  number: number;
  /** Its name for scripts (`--json`). */
  key: string;
  title: string;
  /** What it sends, said before it is sent. */
  sends: string;
  probes: Probe[];
  /** When its valid deliveries were refused: deliveries that test the likely causes, in the order tried (testSuspects). */
  suspects?(own: readonly Outcome[], all: ReadonlyMap<string, readonly Outcome[]>): Probe[];
  /**
   * Judges its own outcomes, in the light of the others' (all, by key: those sent so far, and its suspects' under
   * suspectsKey). `own` may end early: the battery stops sending after its second time-out, and a check cut short is
   * judged on what it sent.
   */
  judge(own: readonly Outcome[], all: ReadonlyMap<string, readonly Outcome[]>): Verdict;
  /** It judges every answer's time: judged even when the battery stopped before its own deliveries were sent. */
  timesEveryAnswer?: true;
  /** Its second delivery repeats its first (check 7): what --effects watches. */
  repeats?: true;
}

/** The event type no catalog has, for the check that an unknown type gets no 5xx. */
export const UNKNOWN_EVENT_TYPE = 'whsvc_check.unknown_type';

const taken = (o: Outcome) => isDelivered(o.result.status);
const refused = (o: Outcome) => o.result.status !== null && o.result.status >= 400 && o.result.status < 500;
export const timedOut = (o: Outcome) => o.result.status === null && o.result.code === 'ETIMEDOUT';
/** Refused as a receiver refuses a signature it does not accept (not a path, a method or a size it does not take). */
const refusedAsUnsigned = (o: Outcome) => o.result.status !== null && [400, 401, 403, 422].includes(o.result.status);

/** Where the outcomes of a check's suspects are kept among all the outcomes. */
export const suspectsKey = (checkKey: string) => `${checkKey}${SUSPECTS}`;
const SUSPECTS = ':suspects';
const isSuspectsKey = (key: string) => key.endsWith(SUSPECTS);

/**
 * Whether `o` got the answer one of `valid` got: the same status, and the same body, unless the valid ones' bodies for
 * that status differ among themselves (then they say something of each request, an id or a time, and tell nothing).
 */
function answeredAsValid(o: Outcome, valid: readonly Outcome[]): boolean {
  const body = (x: Outcome) => (x.result.body ?? '').trim();
  return valid.some((v) => {
    if (v.result.status !== o.result.status) return false;
    const bodies = new Set(valid.filter((w) => w.result.status === v.result.status).map(body));
    return bodies.size > 1 || body(v) === body(o);
  });
}

/** The outcomes of a check's deliveries signed with the secret in `keyName`. */
const signedWith = (own: readonly Outcome[], keyName: string) => own.filter((o) => o.probe.signedWith === keyName);

/** A control answered otherwise than the valid deliveries it is compared with: their signature verified. */
const controlTells = (o: Outcome, own: readonly Outcome[]) => o.probe.controls !== undefined && !answeredAsValid(o, signedWith(own, o.probe.controls));

/**
 * Sends a failed check's suspects one at a time (`send`), until one is taken, an answer tells nothing (neither taken
 * nor refused as a bad signature), or the control tells that the signature verified; what came back is kept in `all`
 * for the judges. A receiver whose valid deliveries are not refused gets none.
 */
export async function testSuspects(
  check: Check,
  suspects: readonly Probe[],
  all: Map<string, readonly Outcome[]>,
  send: (probe: Probe) => Promise<Outcome>,
): Promise<Outcome[]> {
  const tried: Outcome[] = [];
  for (const probe of suspects) {
    const outcome = await send(probe);
    tried.push(outcome);
    if (!refusedAsUnsigned(outcome) || controlTells(outcome, all.get(check.key) ?? [])) break;
  }
  if (tried.length > 0) all.set(suspectsKey(check.key), tried);
  return tried;
}

/** What is said before a check's suspects are sent. */
export function testingWords(check: Check, suspects: readonly Probe[]): string {
  const controls = suspects.filter((probe) => probe.controls !== undefined).length;
  const each = `${controls ? `${controls === 1 ? 'one' : controls} signed with a secret made up for it, then ` : ''}each signed as a likely mistake would verify it`;
  return `testing what made ${check.number} fail: up to ${counted(suspects.length, 'delivery', 'deliveries')}, ${each}, until one is taken`;
}

/** The suspect whose delivery was taken, among those tried: the cause, tested. */
const suspectTaken = (tried: readonly Outcome[] | undefined): CauseFound | undefined => tried?.find(taken)?.probe.suspect;

/**
 * Why check 1's deliveries signed with the secret in `keyName` were refused, from what its suspects (`tried`) got: the
 * suspect taken; the payload, when the control got another answer than the valid ones (`own`); else, every suspect
 * and the control refused alike, the likely cause left. Undefined when none was sent, or an answer told nothing.
 */
function refusalCause(tried: readonly Outcome[] | undefined, keyName: string, own: readonly Outcome[]): CauseFound | undefined {
  if (tried === undefined || tried.length === 0) return undefined;
  const suspect = suspectTaken(tried);
  if (suspect) return suspect;
  const valid = signedWith(own, keyName);
  const control = tried.find((o) => o.probe.controls !== undefined);
  if (control === undefined || valid.length === 0 || !tried.every(refusedAsUnsigned)) return undefined;
  if (controlTells(control, own)) return payloadRefused(answered(valid[0]!), answered(control));
  const login = valid.map(loginAsked).find((asked) => asked !== undefined);
  return refusedAlike(keyName, tried.length - 1, answered(control), login);
}

/** A verdict's cause and fix when a cause was named, with the cause itself for --json when it was tested. */
const foundVerdict = (found: CauseFound): Pick<Verdict, 'cause' | 'fix' | 'found'> => ({
  cause: found.cause,
  fix: found.fix,
  found: found.likely ? undefined : found,
});

/**
 * A refusal that check 1 explains: every valid delivery signed with the same secret was refused there, for the cause
 * said there (tested, or not when an answer told nothing). Said once, there; here, `see 1`.
 */
function explainedByFirst(o: Outcome, all: ReadonlyMap<string, readonly Outcome[]>): Pick<Verdict, 'cause' | 'explainedBy'> | undefined {
  const name = o.probe.signedWith;
  if (name === null || !refusedAsUnsigned(o)) return undefined;
  const there = (all.get(EVENT_TYPES_KEY) ?? []).filter((x) => x.probe.signedWith === name);
  if (there.length === 0 || !there.every(refusedAsUnsigned)) return undefined;
  const found = refusalCause(all.get(suspectsKey(EVENT_TYPES_KEY)), name, all.get(EVENT_TYPES_KEY) ?? []);
  return { cause: `see 1${found ? `: ${found.short}` : ''}`, explainedBy: 1 };
}

/** What came back, in words: `401 "bad signature"`, `no answer within 10 s`, `no answer: connection refused`; a body longer than shown (or than read) ends in `…`. */
export function answered(o: Outcome): string {
  const { status, body, cut } = o.result;
  if (status === null) return noAnswer(o.result.error);
  const text = shownText(body ?? '', cut);
  return text === '' ? String(status) : `${status} ${JSON.stringify(text)}`;
}

/** What came back, as a summary says it: `answered 401 "bad signature"`, `got no answer within 10 s`, `got a broken answer: …`. */
export function reply(o: Outcome): string {
  const what = answered(o);
  if (o.result.status !== null) return `answered ${what}`;
  return what.startsWith(NO_ANSWER) ? `got ${what}` : `got a ${what}`;
}

/** The statuses of several outcomes, each once: `200`, `200, 202`, `401, no answer`. */
function statuses(outcomes: readonly Outcome[]): string {
  const words = [...new Set(outcomes.map((o) => (o.result.status === null ? 'no answer' : String(o.result.status))))];
  return words.join(', ');
}

/** Text of the receiver's as a line shows it (an answer's body, a header): sanitized, its first 60 characters, `…` when cut (or read only in part). */
function shownText(value: string, cut = false): string {
  const text = sanitize(value).trim();
  return text.length > 60 || cut ? `${text.slice(0, 59)}…` : text;
}

/** The login an answer asks for: its WWW-Authenticate, as shown; undefined when it has none. */
const loginAsked = (o: Outcome) => (o.result.authenticate === undefined ? undefined : shownText(o.result.authenticate));

/** A Location that is a login page (of a proxy, an identity provider, Cloudflare Access). */
const LOGIN_PAGE = /log-?in|sign-?in|auth|sso|saml|cdn-cgi\/access/i;

/** Why a redirect answered a delivery, and what to do: where it goes, a login when it goes to one. */
function redirected(o: Outcome): Pick<Verdict, 'cause' | 'fix'> {
  const { status, location } = o.result;
  if (location !== undefined && LOGIN_PAGE.test(location)) {
    return {
      cause: `${status} redirects to a login (${shownText(location)}): something in front of the receiver asks for one, and the service follows no redirect`,
      fix: LOGIN_FIX,
    };
  }
  const to = location === undefined ? '' : ` to ${shownText(location)}`;
  return { cause: `${status} is a redirect${to}, which the service does not follow`, fix: 'give the webhook the final URL' };
}

/** Why a send came back with no answer to judge, but a timeout (which each check words itself): nothing answered, or what answered broke HTTP. */
function unanswered(o: Outcome): Pick<Verdict, 'cause' | 'fix'> {
  if (o.result.code === BROKEN_ANSWER_CODE) {
    return {
      cause: 'what it sent back is no HTTP answer the service can read: the service counts the attempt failed and sends it again',
      fix: 'answer a well-formed HTTP/1.1 response: a status line, headers under 16 KiB, a body as long as its Content-Length, the connection kept open until it is sent',
    };
  }
  return { cause: `nothing answered: ${o.result.error ?? 'no answer'}`, fix: "check that the receiver runs, and the URL's host and port" };
}

/** Why a delivery that should have been taken was not, and what to do: from what came back (or `see 1`, when check 1 explains it). */
function whyNotTaken(o: Outcome, limitMs: number, all?: ReadonlyMap<string, readonly Outcome[]>): Pick<Verdict, 'cause' | 'fix' | 'explainedBy'> {
  const explained = all && explainedByFirst(o, all);
  if (explained) return explained;
  const { status } = o.result;
  if (status === null) {
    return timedOut(o)
      ? {
          cause: `it gives no answer within ${elapsed(limitMs)}: the service counts such an attempt failed and sends it again (see 9)`,
          fix: 'answer 2xx as soon as the delivery is verified and kept, and do the work afterwards (a queue)',
        }
      : unanswered(o);
  }
  if (status >= 300 && status < 400) return redirected(o);
  if (status === 404 || status === 405)
    return { cause: `nothing takes a POST at this URL's path (${status})`, fix: 'check the path, and that its route takes POST' };
  if (status === 413) return { cause: 'its request body limit is smaller than this delivery', fix: `raise it to ${LARGEST_PAYLOAD_BYTES / 1024} KiB or more` };
  const login = loginAsked(o);
  if (login !== undefined) {
    return {
      cause: `something in front of it asks for a login (WWW-Authenticate: ${login}): it refuses deliveries before a signature is checked`,
      fix: LOGIN_FIX,
    };
  }
  if (status === 401 || status === 403) {
    return {
      cause: `it refuses deliveries signed with the secret in ${o.probe.signedWith ?? 'the file given'}: it holds another secret, or computes the signature otherwise`,
      fix: `give it the webhook's signing secret; the signature is "sha256=" and the hex HMAC-SHA256 of the raw body; ${KEY_CONVENTION}`,
    };
  }
  if (status >= 400 && status < 500) {
    return {
      cause: `it refuses a delivery the service would send (${status})`,
      fix: 'answer 2xx to every delivery whose signature verifies; see what it answered',
    };
  }
  if (status >= 500)
    return { cause: `it fails while handling a valid delivery (${status})`, fix: 'see its log; the service sends a delivery answered 5xx again' };
  return { cause: `it answered ${status}, which is not a 2xx`, fix: 'answer 2xx to every delivery whose signature verifies' };
}

/** A delivery that should have been refused (4xx): what the answer given means, and what to do; `taken` says why a 2xx is wrong here. */
function whyNotRefused(o: Outcome, limitMs: number, whenTaken: Pick<Verdict, 'cause' | 'fix'>): Pick<Verdict, 'cause' | 'fix'> {
  const { status } = o.result;
  if (taken(o)) return whenTaken;
  if (status === null) {
    return timedOut(o)
      ? {
          cause: `it gives no answer within ${elapsed(limitMs)} (see 9): the service takes that for a failure of the receiver's and sends the forgery again`,
          fix: 'refuse it at once: 400 or 401',
        }
      : unanswered(o);
  }
  if (status >= 500) {
    return {
      cause: `${status} tells the service the receiver failed, so it sends the forgery again; a 5xx here usually means the check threw instead of refusing`,
      fix: 'answer 400 or 401 when the signature is missing, malformed or does not match',
    };
  }
  if (status >= 300 && status < 400) return redirected(o);
  return { cause: `it answered ${status}`, fix: 'refuse with a 4xx: 400 or 401' };
}

/** The outcomes that failed a rule, in words: `invoice.paid: 401 "bad signature"; product.updated: no answer within 10 s`. */
function failures(outcomes: readonly Outcome[], ok: (o: Outcome) => boolean): string {
  const failed = outcomes.filter((o) => !ok(o));
  const shown = failed.slice(0, 3).map((o) => `${o.probe.what}: ${answered(o)}`);
  return `${shown.join('; ')}${failed.length > 3 ? `; and ${failed.length - 3} more` : ''}`;
}

/**
 * Whether a refusal shows nothing: every valid delivery of check 1 was refused (4xx), and this one got the answer they
 * got. A forgery refused so may have been refused for anything but its signature (a login in front, another secret).
 */
function refusedAsValid(o: Outcome, all: ReadonlyMap<string, readonly Outcome[]>): boolean {
  const valid = all.get(EVENT_TYPES_KEY) ?? [];
  return refused(o) && valid.length > 0 && valid.every(refused) && answeredAsValid(o, valid);
}

/** The verdict of refusals that show nothing (refusedAsValid): not a pass, not a failure. */
const notShown = (answers: string): Verdict => ({
  result: 'inconclusive',
  summary: `${answers}; not shown: it refuses valid deliveries too (see 1)`,
  explainedBy: 1,
});

/** A refusal check: every probe answered 4xx, and otherwise than valid deliveries, when those were refused too. */
function judgeRefusal(
  own: readonly Outcome[],
  all: ReadonlyMap<string, readonly Outcome[]>,
  limitMs: number,
  whenTaken: Pick<Verdict, 'cause' | 'fix'>,
): Verdict {
  const wrong = own.find((o) => !refused(o));
  if (wrong === undefined) {
    const answers = `answered ${statuses(own)}`;
    return own.some((o) => refusedAsValid(o, all)) ? notShown(answers) : { result: 'pass', summary: answers };
  }
  return { result: 'fail', summary: own.length === 1 ? reply(wrong) : failures(own, refused), ...whyNotRefused(wrong, limitMs, whenTaken) };
}

/** The body made with its JSON written as no serializer writes it: keys in reverse order, spaces before colons, a line per key, the first character of each string as a \u escape. */
export function unlikeReserialized(value: unknown, indent = ''): string {
  if (typeof value === 'string') {
    if (value === '') return '""';
    // The first character escaped (both halves of a surrogate pair), the rest as JSON writes it.
    const units = (value.codePointAt(0) ?? 0) > 0xffff ? 2 : 1;
    const escaped = value
      .slice(0, units)
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
    return `"${escaped.join('')}${JSON.stringify(value.slice(units)).slice(1)}`;
  }
  if (Array.isArray(value)) return `[ ${value.map((item) => unlikeReserialized(item, indent)).join(' , ')} ]`;
  if (typeof value === 'object' && value !== null) {
    const inner = `${indent}   `;
    const entries = Object.entries(value)
      .reverse()
      .map(([key, item]) => `${inner}${JSON.stringify(key)} : ${unlikeReserialized(item, inner)}`);
    return `{\n${entries.join(' ,\n')}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** The body with one byte changed: its last digit, made another (an amount, as a forger would change it). */
export function withOneByteChanged(body: string): { body: string; change: string } {
  const at = body.search(/\d(?!.*\d)/s);
  if (at < 0) return { body: `${body.slice(0, -1)} ${body.slice(-1)}`, change: 'a space added before its last character' };
  const digit = body[at]!;
  const other = digit === '9' ? '8' : String(Number(digit) + 1);
  return { body: body.slice(0, at) + other + body.slice(at + 1), change: `a digit ${digit} made ${other}` };
}

/** The sample of `event` grown to `bytes` exactly, with invoice lines and a memo: the largest payload the service sends. */
export function payloadOfSize(event: string, now: Date, bytes: number): string {
  const payload: Record<string, unknown> = { ...samplePayload(event, now), lines: [] as unknown[], memo: '' };
  const lines = payload.lines as unknown[];
  const size = () => Buffer.byteLength(JSON.stringify(payload));
  const line = (n: number) => ({
    sku: `SKU-${String(n).padStart(5, '0')}`,
    description: 'Steel bracket 40 mm',
    quantity: 1,
    amount: { amount: 129, currency: 'EUR' },
  });
  while (size() + 200 < bytes) lines.push(line(lines.length + 1));
  payload.memo = 'x'.repeat(Math.max(0, bytes - size()));
  return JSON.stringify(payload);
}

/** A secret of the receiver's, named by its file. */
type Key = BatteryContext['secrets'][number];

/** What every check makes its deliveries from. */
interface Making {
  ctx: BatteryContext;
  /** The receiver's first secret: each valid delivery is signed with it. */
  first: Key;
  /** Its other secrets (while it moves to a new one). */
  others: readonly Key[];
  /** The event type of the checks that send one kind of delivery: invoice.paid when it is taken, else the first. */
  event: string;
  /** The sample of `event` that the forged deliveries are made from, one body for each of them. */
  original: string;
  /** A fresh sample of `event`, compact. */
  sample(): string;
  /** A delivery made as the service makes one, dated ctx.now. */
  make(body: string, event: string, extra?: { secret?: string; signature?: string; deliveryId?: string; attempt?: number }): MadeDelivery;
  /** A delivery signed with one of the receiver's secrets (the first unless another is given): what it holds verifies it. */
  signed(what: string, body: string, event: string, key?: Key): Probe;
  /** The deliveries that test the suspects of a refusal of deliveries signed with `key`, of `event`, the body given. */
  suspected(suspects: (of: SuspectOf) => Suspect[], key: Key, body: string): Probe[];
}

/** The checks, in order, with the deliveries each sends. */
export function battery(ctx: BatteryContext): Check[] {
  const making = makingFor(ctx);
  return [
    eventTypesCheck(making),
    rawBytesCheck(making),
    tamperedBodyCheck(making),
    otherSecretCheck(making),
    noSignatureCheck(making),
    malformedSignatureCheck(making),
    repeatedDeliveryCheck(making),
    unknownEventCheck(making),
    timeLimitCheck(making),
  ];
}

function makingFor(ctx: BatteryContext): Making {
  const [first, ...others] = ctx.secrets;
  if (first === undefined) throw new Error('check-receiver needs a secret');
  const event = ctx.events.find((type) => type === 'invoice.paid') ?? ctx.events[0];
  if (event === undefined) throw new Error('check-receiver needs an event type');
  const sample = () => JSON.stringify(samplePayload(event, ctx.now));
  const make: Making['make'] = (body, type, extra = {}) =>
    madeDelivery(body, { event: type, platformName: ctx.platformName, userAgent: ctx.userAgent, sentAt: ctx.now, ...extra });
  const signed: Making['signed'] = (what, body, type, key = first) => ({
    what,
    delivery: make(body, type, { secret: key.secret }),
    signatureCheck: 'verified',
    signedWith: key.name,
  });
  const suspected: Making['suspected'] = (suspects, key, body) =>
    suspects({ secret: key.secret, keyName: key.name, event, body, header: signatureHeaderName(ctx.platformName) }).map((suspect) => ({
      what: suspect.what,
      delivery: make(suspect.body, event, { signature: suspect.signature }),
      signatureCheck: checkSignatureWith(ctx.secrets, suspect.body, suspect.signature).check,
      signedWith: null,
      suspect,
    }));
  return { ctx, first, others, event, original: sample(), sample, make, signed, suspected };
}

/** A secret as the service makes one, made up for a check: the receiver cannot hold it. */
const madeUpSecret = () => `whsec_${randomBytes(24).toString('base64url')}`;

/** A delivery that must be refused: not signed with a secret of the receiver's. */
const forged = (what: string, delivery: MadeDelivery, signatureCheck: SignatureCheck): Probe => ({ what, delivery, signatureCheck, signedWith: null });

/** The outcome of one of a check's probes: a check is judged once each of its probes was sent. */
function outcomeOf(own: readonly Outcome[], probe: Probe): Outcome {
  const outcome = own.find((o) => o.probe === probe);
  if (outcome === undefined) throw new Error(`${probe.what}: judged before it was sent`);
  return outcome;
}

/** The key of check 1, whose cause, once found, explains the refusals of the others. */
const EVENT_TYPES_KEY = 'event_types';

/** 1: a valid delivery of each event type (and of one signed with each other secret) is taken. */
function eventTypesCheck({ ctx, first, others, event, sample, make, signed, suspected }: Making): Check {
  const probes = [
    ...ctx.events.map((type) => signed(type, JSON.stringify(samplePayload(type, ctx.now)), type)),
    ...others.map((key) => signed(`${event} signed with ${key.name}`, sample(), event, key)),
  ];
  // Signed with a secret made up for it: compared with the valid deliveries under `key`, it tells their signature verified.
  const control = (key: Key): Probe => ({
    ...forged(`${event} signed with a secret made up for the check`, make(sample(), event, { secret: madeUpSecret() }), 'mismatch'),
    controls: key.name,
  });
  // The secret whose every delivery was refused as a bad signature: the likely causes are tested with it.
  const refusedKey = (own: readonly Outcome[]) =>
    [first, ...others].find((key) => {
      const under = own.filter((o) => o.probe.signedWith === key.name);
      return under.length > 0 && under.every(refusedAsUnsigned);
    });
  return {
    number: 1,
    key: EVENT_TYPES_KEY,
    title: 'a valid delivery of each event type is taken',
    sends: `${counted(probes.length, 'delivery', 'deliveries')}: ${ctx.events.join(', ')}${others.length ? `, and ${event} signed with each other secret` : ''}`,
    probes,
    suspects(own) {
      const key = refusedKey(own);
      return key === undefined ? [] : [control(key), ...suspected(suspectsOfRefusal, key, sample())];
    },
    judge(own, all) {
      const wrong = own.find((o) => !taken(o));
      if (wrong === undefined) return { result: 'pass', summary: `${own.length === 1 ? '' : `all ${own.length} `}answered ${statuses(own)}` };
      const summary = failures(own, taken);
      const key = refusedKey(own);
      const found = key && refusalCause(all.get(suspectsKey(EVENT_TYPES_KEY)), key.name, own);
      // Taken under one secret and not the other: a receiver moving to a new secret must take both.
      if (others.length > 0 && own.filter((o) => o.probe.signedWith === first.name).every(taken)) {
        if (found && !found.likely) return { result: 'fail', summary, ...foundVerdict(found) };
        return {
          result: 'fail',
          summary,
          cause: `it does not take a delivery signed with ${wrong.probe.signedWith}: while it moves to a new secret, a signature under either must verify`,
          fix: 'check the signature against each of its secrets, old and new, until the move is done',
        };
      }
      if (own.some(taken) && refused(wrong)) {
        return {
          result: 'fail',
          summary,
          cause: 'it refuses some event types: every type its webhook subscribes to comes, and a refusal is sent again',
          fix: 'answer 2xx to every delivery that verifies, and skip the work for a type it does not handle',
        };
      }
      return { result: 'fail', summary, ...(found ? foundVerdict(found) : whyNotTaken(wrong, ctx.limitMs)) };
    },
  };
}

/** 2: the JSON written as no serializer writes it, signed over those bytes, is taken. */
function rawBytesCheck({ ctx, first, event, signed, suspected }: Making): Check {
  const otherwise = () => unlikeReserialized(samplePayload(event, ctx.now));
  const probe = signed(`${event} written otherwise`, otherwise(), event);
  // Refused where the same JSON written compactly was taken: it verifies JSON it wrote again.
  const reserializes = (o: Outcome, all: ReadonlyMap<string, readonly Outcome[]>) => {
    const plain = all.get(EVENT_TYPES_KEY)?.find((v) => v.probe.what === event);
    return plain !== undefined && taken(plain) && o.result.status !== null && o.result.status < 500;
  };
  return {
    number: 2,
    key: 'raw_bytes',
    title: 'bytes unlike a re-serialization are taken',
    sends: `${event} with its JSON written otherwise (key order, spacing, \\u escapes), signed over those bytes`,
    probes: [probe],
    suspects(own, all) {
      const o = outcomeOf(own, probe);
      return refusedAsUnsigned(o) && reserializes(o, all) ? suspected(suspectsOfReserialization, first, otherwise()) : [];
    },
    judge(own, all) {
      const o = outcomeOf(own, probe);
      if (taken(o)) return { result: 'pass', summary: `answered ${o.result.status}` };
      if (reserializes(o, all)) {
        const found = suspectTaken(all.get(suspectsKey('raw_bytes')));
        return {
          result: 'fail',
          summary: `${reply(o)}, where the same JSON written compactly was taken`,
          ...(found
            ? foundVerdict(found)
            : { cause: 'it verifies the signature over JSON it parsed and wrote again, whose bytes differ from those signed', fix: RAW_BODY_FIX }),
        };
      }
      return { result: 'fail', summary: reply(o), ...whyNotTaken(o, ctx.limitMs, all) };
    },
  };
}

/** 3: the body changed by one byte after it was signed is refused. */
function tamperedBodyCheck({ ctx, first, event, original, make }: Making): Check {
  const tampered = withOneByteChanged(original);
  const signature = `${SIGNATURE_PREFIX}${digestHex(first.secret, original)}`;
  const header = signatureHeaderName(ctx.platformName);
  return {
    number: 3,
    key: 'tampered_body',
    title: 'a body changed by one byte is refused',
    sends: `${event} with ${tampered.change} after it was signed`,
    probes: [forged(`${event} with one byte changed`, make(tampered.body, event, { signature }), 'mismatch')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause: 'it takes a body that its signature does not match: it does not check the signature, or does not act on the result',
        fix: `compute the HMAC of the raw body, compare it with ${header} in constant time, and answer 400 or 401 when they differ`,
      }),
  };
}

/** 4: a delivery signed with a secret made up for the check is refused. */
function otherSecretCheck({ ctx, event, original, make }: Making): Check {
  const otherSecret = madeUpSecret();
  return {
    number: 4,
    key: 'other_secret',
    title: 'a delivery signed with another secret is refused',
    sends: `${event} signed with a secret made up for this check`,
    probes: [forged(`${event} signed with another secret`, make(original, event, { secret: otherSecret }), 'mismatch')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause:
          "it takes a signature made with another secret: it does not check signatures, or checks them with another secret than the webhook's (a default, an empty one)",
        fix: "check every delivery with the webhook's signing secret, and refuse one that does not match",
      }),
  };
}

/** 5: a delivery without the signature header is refused. */
function noSignatureCheck({ ctx, event, original, make }: Making): Check {
  const header = signatureHeaderName(ctx.platformName);
  return {
    number: 5,
    key: 'no_signature',
    title: 'a delivery with no signature is refused',
    sends: `${event} with no ${header} header`,
    probes: [forged(`${event} unsigned`, make(original, event), 'missing')],
    judge: (own, all) =>
      judgeRefusal(own, all, ctx.limitMs, {
        cause: `it takes a delivery without ${header}: its check is skipped when the header is absent`,
        fix: `refuse a delivery without ${header}: 400 or 401`,
      }),
  };
}

/** 6: the right digest under sha1=, and a sha256= digest cut short, are refused (and a cut one makes no 5xx). */
function malformedSignatureCheck({ ctx, first, event, original, make }: Making): Check {
  const digest = digestHex(first.secret, original);
  const cutShort = forged(`${event} with the digest cut short`, make(original, event, { signature: `${SIGNATURE_PREFIX}${digest.slice(0, 32)}` }), 'malformed');
  return {
    number: 6,
    key: 'malformed_signature',
    title: 'a signature in the wrong form is refused',
    sends: `${event} twice: its right digest under sha1=, then sha256= with the digest cut to 32 hex digits`,
    probes: [forged(`${event} signed sha1=<digest>`, make(original, event, { signature: `sha1=${digest}` }), 'malformed'), cutShort],
    judge(own, all) {
      const crashed = own.find((o) => o.result.status !== null && o.result.status >= 500);
      if (crashed?.probe === cutShort && !own.some(taken)) {
        return {
          result: 'fail',
          summary: failures(own, refused),
          cause: `a signature of the wrong length makes it fail (${crashed.result.status}): a constant-time compare of unequal lengths throws (Node's timingSafeEqual does)`,
          fix: 'check that the header is sha256= and 64 hex digits before comparing, and answer 400 when it is not',
        };
      }
      return judgeRefusal(own, all, ctx.limitMs, {
        cause: 'it takes a signature in the wrong form: it compares only part of it, or ignores what comes before the digest',
        fix: 'take the header only when it is sha256= and 64 hex digits, and compare the whole digest in constant time',
      });
    },
  };
}

/** What check 7 cannot see without --effects: whether the receiver acted on the repeat again. */
export const secondEffectUnseen = (deliveryIdHeader: string) =>
  `a second effect of the repeat cannot be seen over HTTP: drop repeats by ${deliveryIdHeader} (--effects CMD can see it)`;

/** 7: one delivery sent again with the same delivery id, as the service retries it, is answered 2xx both times. */
function repeatedDeliveryCheck({ ctx, first, event, sample, make }: Making): Check {
  const deliveryIdHeader = deliveryHeaderNames(ctx.platformName).deliveryId;
  const repeated = make(sample(), event, { secret: first.secret });
  const once: Probe = { what: `${event}, attempt 1`, delivery: repeated, signatureCheck: 'verified', signedWith: first.name };
  const again: Probe = {
    what: `${event}, attempt 2 of the same delivery`,
    delivery: make(repeated.body.toString('utf8'), event, { signature: repeated.signature, deliveryId: repeated.deliveryId, attempt: 2 }),
    signatureCheck: 'verified',
    signedWith: first.name,
  };
  return {
    number: 7,
    key: 'repeated_delivery',
    title: 'the same delivery sent twice is answered 2xx twice',
    sends: `one ${event} delivery, then again with the same delivery id, as the service retries one (attempt 2)`,
    probes: [once, again],
    repeats: true,
    judge(own, all) {
      const sent = outcomeOf(own, once);
      // The repeat is looked at only once the first was taken: a battery stopped by time-outs may not have sent it.
      if (!taken(sent)) return { result: 'fail', summary: `the first send ${reply(sent)}`, ...whyNotTaken(sent, ctx.limitMs, all) };
      const resent = outcomeOf(own, again);
      if (taken(resent)) {
        return {
          result: 'pass',
          // What HTTP shows is the answer; whether it acted twice is not (check-receiver's --effects can see it).
          summary: `answered ${sent.result.status}, then ${resent.result.status}${ctx.effectsWatched ? '' : `; ${secondEffectUnseen(deliveryIdHeader)}`}`,
        };
      }
      if (resent.result.status === null) return { result: 'fail', summary: `the repeat ${reply(resent)}`, ...whyNotTaken(resent, ctx.limitMs, all) };
      return {
        result: 'fail',
        summary: `answered ${sent.result.status}, then ${answered(resent)}`,
        cause:
          'it refuses a delivery id it has seen: the service sends a delivery again when it did not get the answer (a timeout, a lost connection), and that retry must be answered 2xx',
        fix: `keep the ${deliveryIdHeader} of each delivery it has processed, and answer a repeat 2xx without doing the work again`,
      };
    },
  };
}

/** 8: a validly signed event of a type no catalog has gets no 5xx. */
function unknownEventCheck({ ctx, signed }: Making): Check {
  const body = JSON.stringify({
    id: `evt_${randomBytes(6).toString('hex')}`,
    event: UNKNOWN_EVENT_TYPE,
    note: 'an event type this receiver does not know',
  });
  const probe = signed(UNKNOWN_EVENT_TYPE, body, UNKNOWN_EVENT_TYPE);
  return {
    number: 8,
    key: 'unknown_event',
    title: 'an unknown event type gets no 5xx',
    sends: `an event of the type ${UNKNOWN_EVENT_TYPE}, validly signed`,
    probes: [probe],
    judge(own, all) {
      const o = outcomeOf(own, probe);
      if (refusedAsValid(o, all)) return notShown(`answered ${o.result.status}`);
      if (taken(o) || refused(o)) return { result: 'pass', summary: `answered ${o.result.status}${refused(o) ? ' (a refusal it may document)' : ''}` };
      if (o.result.status !== null && o.result.status >= 500) {
        return {
          result: 'fail',
          summary: reply(o),
          cause: 'it fails on an event type it does not know: the service may add types, and sends a 5xx delivery again and again',
          fix: 'answer 2xx (or a 4xx you document) to a type it does not handle',
        };
      }
      return { result: 'fail', summary: reply(o), ...whyNotTaken(o, ctx.limitMs, all) };
    },
  };
}

/** 9: every answer of the battery came within the limit, and the largest payload the service sends is taken. */
function timeLimitCheck({ ctx, event, signed }: Making): Check {
  const limit = elapsed(ctx.limitMs);
  const largestWords = `${LARGEST_PAYLOAD_BYTES.toLocaleString('en')}-byte`;
  const probe = signed(`${event} of ${LARGEST_PAYLOAD_BYTES} bytes`, payloadOfSize(event, ctx.now, LARGEST_PAYLOAD_BYTES), event);
  return {
    number: 9,
    key: 'time_limit',
    title: `every answer within ${limit}; the largest payload taken`,
    sends: `${event} of ${LARGEST_PAYLOAD_BYTES.toLocaleString('en')} bytes (the largest the service sends); every answer is timed`,
    probes: [probe],
    timesEveryAnswer: true,
    judge(own, all) {
      const every = [...all.values()].flat();
      const answers = every.filter((o) => o.result.status !== null);
      const times = answers.map((o) => o.ms);
      const late = every.filter(timedOut);
      // The cause probes counted apart: the deliveries are those said before the battery began.
      const probes = [...all].flatMap(([key, outcomes]) => (isSuspectsKey(key) ? outcomes.filter((o) => o.result.status !== null) : [])).length;
      const apart = probes ? ` (${answers.length - probes} to deliveries and ${probes} to cause probes)` : '';
      const timing = times.length
        ? `slowest ${elapsed(Math.max(...times))}, median ${elapsed(median(times))} of ${counted(times.length, 'answer')}${apart}`
        : 'no answer came';
      if (late.length > 0) {
        return {
          result: 'fail',
          summary: `${late.length} of ${every.length} got no answer within ${limit}${times.length ? `; ${timing}` : ''}`,
          cause: `the service waits ${limit} for an answer: past it the attempt has failed, and the delivery is sent again`,
          fix: 'answer 2xx as soon as the delivery is verified and kept, and do the work afterwards (a queue)',
        };
      }
      const big = outcomeOf(own, probe);
      if (taken(big)) return { result: 'pass', summary: `${timing}; the ${largestWords} payload answered ${big.result.status}` };
      const why =
        big.result.status === 413
          ? {
              cause: `its request body limit is below ${LARGEST_PAYLOAD_BYTES / 1024} KiB, the largest payload the service sends`,
              fix: `raise it to ${LARGEST_PAYLOAD_BYTES / 1024} KiB or more`,
            }
          : whyNotTaken(big, ctx.limitMs, all);
      return { result: 'fail', summary: `${timing}; the ${largestWords} payload ${reply(big)}`, ...why };
    },
  };
}

/** What passing every check shows, and what it cannot: the words after `all 9 checks passed`. */
export const allPassedWords = (limitMs: number) =>
  `it takes valid deliveries by their raw bytes, refuses forged ones, answers a repeat 2xx and answers within ${elapsed(limitMs)}; whether it acts twice on a repeat cannot be seen over HTTP (see 7)`;

/** The middle of some times (the mean of the two middle ones, rounded, for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}
