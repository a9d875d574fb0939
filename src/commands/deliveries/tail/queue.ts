import type { ApiClient } from '../../../api/client.js';
import { getWebhook } from '../../../api/endpoints.js';
import { deliveryKey } from '../../../api/log.js';
import { routeFor, type ForwardRoute } from '../../../receiver/routes.js';
import { sanitize } from '../../../render/text.js';
import { FORWARDED_BOUND } from './checkpoint.js';
import type { Change, Position } from './follow.js';
import { retrieveDelivery, sendRetrieved, type ForwardTarget, type Retrieved } from './forward.js';
import { answeredStatus } from '../../../api/log.js';
import type { RecordLine } from '../../../protocol/record-line.js';
import { deliveryRecord, type RecordFile } from '../../../receiver/record-file.js';
import type { TailPrinter } from './printer.js';

interface Waiting {
  change: Change;
  key: string;
  /** None: only recorded (--record), no route takes its event type. */
  route: ForwardRoute | undefined;
  /** Tried already, and the app did not answer: said once. */
  told: boolean;
}

/**
 * What `tail --forward-to` still has to send, in the order the attempts came:
 * each delivery once (its first attempt seen; its retries are not), the ids
 * forwarded kept (bounded) so that a restart from a checkpoint sends none
 * twice. An app that does not answer holds the queue: the same delivery is
 * tried again at the next poll, ahead of the newer ones.
 */
export class ForwardQueue {
  private readonly waiting: Waiting[] = [];
  /** Delivery ids forwarded, newest last. */
  readonly forwarded: string[];
  private readonly forwardedSet: Set<string>;
  private mismatchExplained = false;
  /** Each webhook's URL path, read once: where a forward to a URL without a path goes, and what a record says. */
  private readonly paths = new Map<string, Promise<string>>();

  constructor(
    private readonly api: ApiClient,
    private readonly target: ForwardTarget,
    private readonly printer: Pick<TailPrinter, 'forward'>,
    private readonly note: (text: string) => void,
    alreadyForwarded: string[],
    /** --record: each delivery also appended to this file, once. */
    private readonly recorder?: RecordFile,
  ) {
    this.forwarded = [...alreadyForwarded];
    this.forwardedSet = new Set(this.forwarded);
  }

  get size(): number {
    return this.waiting.length;
  }

  /** A new attempt: its delivery waits to be forwarded by the route of its event type, unless it has none, was forwarded or already waits. */
  offer(change: Change): void {
    const key = deliveryKey(change.attempt);
    const route = routeFor(this.target.routes, change.attempt.event);
    if ((route || this.recorder) && !this.forwardedSet.has(key) && !this.waiting.some((w) => w.key === key))
      this.waiting.push({ change, key, route, told: false });
  }

  /** The position a delivery still to forward holds its webhook back to: the attempt before it (null: the log's start). */
  heldBack(webhookId: string): Position | null | undefined {
    const held = this.waiting.find((w) => w.change.webhookId === webhookId);
    return held ? (held.change.before ?? null) : undefined;
  }

  /** Sends what waits, in order, until done, stopped, or the app does not answer; `sent` after each one leaves the queue. */
  async drain(stopped: () => boolean, sent: () => void): Promise<void> {
    while (this.waiting.length > 0 && !stopped()) {
      const waiting = this.waiting[0]!;
      const retrieved = await retrieveDelivery(this.api, this.target, waiting.change.attempt);
      if ('kind' in retrieved) {
        this.note(`cannot forward ${sanitize(waiting.key)}: ${retrieved.why}; left out`);
      } else {
        if (retrieved.signatureCheck === 'mismatch' && !this.mismatchExplained) {
          this.mismatchExplained = true;
          this.note(
            `${sanitize(waiting.key)}: the body rebuilt from the stored payload does not carry the stored signature under ${this.target.secret!.describe}. ` +
              "Either that secret is not this webhook's, or the service signed other bytes than the compact JSON of the payload: " +
              'your app will refuse this forward for that reason, not for a bug of its own. Forwarded all the same.',
          );
        }
        const path = await this.pathOf(waiting.change.webhookId);
        if (waiting.route) {
          const outcome = await sendRetrieved(this.target, new URL(waiting.route.url), path, retrieved);
          if (outcome.kind === 'no_answer') {
            // Not forwarded, not checkpointed: tried again at the next poll, ahead of the newer ones.
            if (!waiting.told) this.printer.forward(waiting.change, waiting.key, waiting.route, outcome);
            waiting.told = true;
            return;
          }
          this.printer.forward(waiting.change, waiting.key, waiting.route, outcome);
        }
        this.recorder?.append(recordOf(waiting, retrieved, path, this.target.platform));
        this.forwarded.push(waiting.key);
        this.forwardedSet.add(waiting.key);
        for (const old of this.forwarded.splice(0, Math.max(0, this.forwarded.length - FORWARDED_BOUND))) this.forwardedSet.delete(old);
      }
      this.waiting.shift();
      sent();
    }
  }

  private pathOf(webhookId: string): Promise<string> {
    let path = this.paths.get(webhookId);
    if (!path) {
      path = getWebhook(this.api, webhookId)
        .then((webhook) => new URL(webhook.url).pathname)
        .catch(() => '/');
      this.paths.set(webhookId, path);
    }
    return path;
  }
}

/** A delivery read back from the service as a record (the format of `listen --record`): sent when it was, as it was. */
function recordOf(waiting: Waiting, retrieved: Retrieved, path: string, platformName: string): RecordLine {
  const { record } = retrieved;
  return deliveryRecord({
    receivedAt: waiting.change.attempt.created_at,
    path,
    headers: retrieved.headers,
    body: Buffer.from(retrieved.body),
    signatureCheck: retrieved.signatureCheck,
    event: record.event ?? waiting.change.attempt.event,
    deliveryId: waiting.key,
    attempt: record.attempts ?? waiting.change.attempt.attempts ?? null,
    answered: answeredStatus(record.response_code) ?? 0,
    platformName,
  });
}
