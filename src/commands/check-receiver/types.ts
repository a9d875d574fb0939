import type { MadeDelivery } from '../../protocol/delivery.js';
import type { SignatureCheck } from '../../protocol/signature.js';
import type { SendResult } from '../../receiver/send-on.js';
import type { CauseFound, Suspect, SuspectOf } from './causes.js';

// What a check of `check-receiver` is (what it sends, how it judges what came back) and what its deliveries are made
// from: the words the battery (battery.ts), its checks (checks.ts), its judges, its sender and its report share.

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

/** A secret of the receiver's, named by its file. */
export type Key = BatteryContext['secrets'][number];

/** What every check makes its deliveries from. */
export interface Making {
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
