import type { Clock } from './clock.js';

/** Sends that may be held back, and whether they have stalled: one webhook's (a lane), or the whole sandbox's. */
interface Share {
  /** When the share last made progress (elapsed time): a send of it ended, or it became full. */
  progressAt: number;
  /** Acknowledgements of events whose sends wait on this share, given at once if it stalls first. */
  acks: Set<() => void>;
  /** Looks again at whether the share stalled, while acknowledgements wait. */
  stallTimer: unknown;
}

/** One webhook's share: its sends in flight, and the sends waiting for a turn. */
export interface Lane extends Share {
  readonly webhookId: string;
  inFlight: number;
  readonly waiting: Array<() => void>;
}

/** What a send that asks for its turn is told: when it must wait, when it starts, and its event's acknowledgement. */
export interface TurnHooks {
  /** It has to wait for its turn (not called when it starts at once). */
  waits?: () => void;
  /** It had to wait, and starts now. */
  starts?: () => void;
  /**
   * Acknowledges the event the send is for: once the send starts, or, if it
   * waits, once what holds it back has stalled (its webhook's sends, or every
   * send of the sandbox) so that a hanging endpoint never holds up the events
   * of others, nor the caller.
   */
  acknowledge?: (() => void) | undefined;
}

/** The longest delay a timer takes (about 24.8 days): a share is never counted stalled after a longer stalledAfterMs. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * What of the budget is kept back: its last quarter is only for webhooks with
 * fewer than `firstSends` sends in flight, so that endpoints that hang, each
 * holding its whole share, can never hold every connection (four of 64 were
 * the whole of 256): another webhook's send still starts at once.
 */
export function keptBack(total: number): { reserve: number; firstSends: number } {
  const reserve = Math.floor(total / 4);
  return { reserve, firstSends: Math.max(1, Math.floor(reserve / 8)) };
}

/**
 * Whose turn it is to send. Each webhook has a lane, its own share of
 * `perWebhook` sends in flight and its queue, so that an endpoint that hangs
 * can only ever hold its own sends; the whole sandbox has one budget of
 * `total` sends in flight (each a connection, a file descriptor), of which a
 * reserve is kept for webhooks' first sends (keptBack). When the budget is
 * full the lanes waiting take turns, one send each a round. A lane with
 * nothing in flight nor waiting is dropped (a deleted or idle webhook keeps
 * nothing).
 */
export class Lanes {
  private readonly lanes = new Map<string, Lane>();
  /** The sandbox's sends in flight, bounded by `total`. */
  private readonly all: Share & { inFlight: number } = { inFlight: 0, progressAt: 0, acks: new Set(), stallTimer: null };
  /** The budget but its reserve (keptBack), which bounds the sends beyond a webhook's first: full at `total - reserve`. */
  private readonly shared: Share = { progressAt: 0, acks: new Set(), stallTimer: null };
  /** Lanes with sends waiting, in the order they take turns. */
  private readonly ready = new Set<Lane>();
  private readonly reserve: number;
  private readonly firstSends: number;

  constructor(
    private readonly limits: { perWebhook: number; total: number; stalledAfterMs: number },
    /** Real elapsed time: a stall is counted in it, whatever the sandbox's clock does. */
    private readonly elapsed: Clock,
  ) {
    ({ reserve: this.reserve, firstSends: this.firstSends } = keptBack(limits.total));
  }

  /** Resolves once a send to the webhook may start, with the lane to give back to `end` when it ends. */
  async turn(webhookId: string, { waits, starts, acknowledge }: TurnHooks = {}): Promise<Lane> {
    let lane = this.lanes.get(webhookId);
    if (!lane) {
      lane = { webhookId, inFlight: 0, waiting: [], progressAt: 0, acks: new Set(), stallTimer: null };
      this.lanes.set(webhookId, lane);
    }
    if (lane.waiting.length > 0 || this.heldBy(lane) !== undefined) {
      waits?.();
      // Held back by its own webhook, its event waits for that webhook to stall; by the sandbox's budget, for every send to.
      const heldBy = this.heldBy(lane) ?? this.all;
      if (acknowledge) this.acknowledgeIfStalled(heldBy, acknowledge);
      const { promise, resolve } = Promise.withResolvers<void>();
      lane.waiting.push(resolve);
      this.ready.add(lane);
      await promise;
      if (acknowledge) heldBy.acks.delete(acknowledge);
      starts?.();
    } else {
      this.take(lane);
    }
    acknowledge?.();
    return lane;
  }

  /** A send ended: its place goes to the next one waiting, in the round. */
  end(lane: Lane): void {
    lane.inFlight -= 1;
    this.all.inFlight -= 1;
    lane.progressAt = this.all.progressAt = this.shared.progressAt = this.elapsed.now();
    this.startWaiting();
    if (lane.inFlight === 0 && lane.waiting.length === 0 && lane.acks.size === 0) this.lanes.delete(lane.webhookId);
  }

  /** What keeps a send of the lane from starting now (its own share, the budget, or the budget but its reserve), if anything. */
  private heldBy(lane: Lane): Share | undefined {
    const { perWebhook, total } = this.limits;
    if (lane.inFlight >= perWebhook) return lane;
    if (this.all.inFlight >= total) return this.all;
    if (lane.inFlight >= this.firstSends && this.all.inFlight >= total - this.reserve) return this.shared;
    return undefined;
  }

  /** A send starts: counted in its lane and in the budget; a share that becomes full counts a stall from now. */
  private take(lane: Lane): void {
    lane.inFlight += 1;
    this.all.inFlight += 1;
    if (lane.inFlight === this.limits.perWebhook) lane.progressAt = this.elapsed.now();
    if (this.all.inFlight === this.limits.total - this.reserve) this.shared.progressAt = this.elapsed.now();
    if (this.all.inFlight === this.limits.total) this.all.progressAt = this.elapsed.now();
  }

  /** Starts waiting sends while the budget has room, one per lane a round, each lane within its own share. */
  private startWaiting(): void {
    const { total } = this.limits;
    let started = true;
    while (started && this.all.inFlight < total && this.ready.size > 0) {
      started = false;
      for (const lane of [...this.ready]) {
        if (this.all.inFlight >= total) break;
        if (this.heldBy(lane) !== undefined) continue;
        this.ready.delete(lane);
        const next = lane.waiting.shift();
        if (!next) continue;
        // To the back of the round.
        if (lane.waiting.length > 0) this.ready.add(lane);
        this.take(lane);
        next();
        started = true;
      }
    }
  }

  /** How long until the share counts as stalled (0 or less: it is). */
  private stalledIn(share: Share): number {
    return this.limits.stalledAfterMs - (this.elapsed.now() - share.progressAt);
  }

  /** Acknowledges now if the share is stalled; else once it stalls, unless the send's turn comes first. */
  private acknowledgeIfStalled(share: Share, acknowledge: () => void): void {
    if (this.stalledIn(share) <= 0) {
      acknowledge();
      return;
    }
    share.acks.add(acknowledge);
    this.watchStall(share);
  }

  /** One timer per share, looking again when it would stall if nothing ended meanwhile. */
  private watchStall(share: Share): void {
    const stalledIn = this.stalledIn(share);
    if (share.stallTimer !== null || share.acks.size === 0 || !(stalledIn < MAX_TIMER_MS)) return;
    share.stallTimer = this.elapsed.setTimeout(() => {
      share.stallTimer = null;
      if (this.stalledIn(share) <= 0) {
        for (const acknowledge of share.acks) acknowledge();
        share.acks.clear();
      } else {
        this.watchStall(share);
      }
    }, stalledIn);
  }
}
