import { LARGEST_PAYLOAD_BYTES } from '../../protocol/delivery.js';
import { isDelivered } from '../../protocol/status.js';
import { BROKEN_ANSWER_CODE } from '../../net.js';
import { sanitize } from '../../render/text.js';
import { elapsed, NO_ANSWER, noAnswer } from '../../render/words.js';
import type { Outcome, Probe, Verdict } from './types.js';
import { type CauseFound, KEY_CONVENTION, LOGIN_FIX, payloadRefused, refusedAlike } from './causes.js';

/**
 * How check-receiver reads what came back: taken or refused, said in words, and why not as it should; the cause of a
 * refusal that the suspects (causes.ts) show, said once and referred to by the checks it explains. Apart from any
 * network, as the checks are (checks.ts).
 */

export const taken = (o: Outcome) => isDelivered(o.result.status);
export const refused = (o: Outcome) => o.result.status !== null && o.result.status >= 400 && o.result.status < 500;
export const timedOut = (o: Outcome) => o.result.status === null && o.result.code === 'ETIMEDOUT';
/** Refused as a receiver refuses a signature it does not accept (not a path, a method or a size it does not take). */
export const refusedAsUnsigned = (o: Outcome) => o.result.status !== null && [400, 401, 403, 422].includes(o.result.status);

/** The key of check 1, whose cause, once found, explains the refusals of the others. */
export const EVENT_TYPES_KEY = 'event_types';

/** Where the outcomes of a check's suspects are kept among all the outcomes. */
export const suspectsKey = (checkKey: string) => `${checkKey}${SUSPECTS}`;
const SUSPECTS = ':suspects';
export const isSuspectsKey = (key: string) => key.endsWith(SUSPECTS);

/** The outcome of one of a check's probes: a check is judged once each of its probes was sent. */
export function outcomeOf(own: readonly Outcome[], probe: Probe): Outcome {
  const outcome = own.find((o) => o.probe === probe);
  if (outcome === undefined) throw new Error(`${probe.what}: judged before it was sent`);
  return outcome;
}

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
export const controlTells = (o: Outcome, own: readonly Outcome[]) => o.probe.controls !== undefined && !answeredAsValid(o, signedWith(own, o.probe.controls));

/** The suspect whose delivery was taken, among those tried: the cause, tested. */
export const suspectTaken = (tried: readonly Outcome[] | undefined): CauseFound | undefined => tried?.find(taken)?.probe.suspect;

/**
 * Why check 1's deliveries signed with the secret in `keyName` were refused, from what its suspects (`tried`) got: the
 * suspect taken; the payload, when the control got another answer than the valid ones (`own`); else, every suspect
 * and the control refused alike, the likely cause left. Undefined when none was sent, or an answer told nothing.
 */
export function refusalCause(tried: readonly Outcome[] | undefined, keyName: string, own: readonly Outcome[]): CauseFound | undefined {
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
export const foundVerdict = (found: CauseFound): Pick<Verdict, 'cause' | 'fix' | 'found'> => ({
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
export function statuses(outcomes: readonly Outcome[]): string {
  const words = [...new Set(outcomes.map((o) => (o.result.status === null ? 'no answer' : String(o.result.status))))];
  return words.join(', ');
}

/** The outcomes that failed a rule, in words: `invoice.paid: 401 "bad signature"; product.updated: no answer within 10 s`. */
export function failures(outcomes: readonly Outcome[], ok: (o: Outcome) => boolean): string {
  const failed = outcomes.filter((o) => !ok(o));
  const shown = failed.slice(0, 3).map((o) => `${o.probe.what}: ${answered(o)}`);
  return `${shown.join('; ')}${failed.length > 3 ? `; and ${failed.length - 3} more` : ''}`;
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

/** The fix of an answer that comes too late: the work after the answer. */
export const ANSWER_AT_ONCE_FIX = 'answer 2xx as soon as the delivery is verified and kept, and do the work afterwards (a queue)';

/** Why a delivery that should have been taken was not, and what to do: from what came back (or `see 1`, when check 1 explains it). */
export function whyNotTaken(o: Outcome, limitMs: number, all?: ReadonlyMap<string, readonly Outcome[]>): Pick<Verdict, 'cause' | 'fix' | 'explainedBy'> {
  const explained = all && explainedByFirst(o, all);
  if (explained) return explained;
  const { status } = o.result;
  if (status === null) {
    return timedOut(o)
      ? {
          cause: `it gives no answer within ${elapsed(limitMs)}: the service counts such an attempt failed and sends it again (see 9)`,
          fix: ANSWER_AT_ONCE_FIX,
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

/**
 * Whether a refusal shows nothing: every valid delivery of check 1 was refused (4xx), and this one got the answer they
 * got. A forgery refused so may have been refused for anything but its signature (a login in front, another secret).
 */
export function refusedAsValid(o: Outcome, all: ReadonlyMap<string, readonly Outcome[]>): boolean {
  const valid = all.get(EVENT_TYPES_KEY) ?? [];
  return refused(o) && valid.length > 0 && valid.every(refused) && answeredAsValid(o, valid);
}

/** The verdict of refusals that show nothing (refusedAsValid): not a pass, not a failure. */
export const notShown = (answers: string): Verdict => ({
  result: 'inconclusive',
  summary: `${answers}; not shown: it refuses valid deliveries too (see 1)`,
  explainedBy: 1,
});

/** A refusal check: every probe answered 4xx, and otherwise than valid deliveries, when those were refused too. */
export function judgeRefusal(
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

/** The middle of some times (the mean of the two middle ones, rounded, for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : Math.round((sorted[middle - 1]! + sorted[middle]!) / 2);
}
