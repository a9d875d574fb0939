import { createHash, randomBytes } from 'node:crypto';
import { usageError } from '../../cli/errors.js';
import { canonicalJson } from '../../exact-json.js';
import { elapsed } from '../../render/words.js';

// The plans of `whsvc mcp`'s write tools: a write tool called without a plan id plans (reads, changes nothing) and
// keeps the plan here; called again with the same arguments and the plan's id, it carries out the steps kept, once
// the same reads, made again, give the same fingerprint. A plan is used once, and expires.

/** How long a plan may wait for its second call: long enough for an agent to show it and be told to go on. */
export const PLAN_TTL_MS = 10 * 60_000;

/** A plan kept for its second call. */
export interface KeptPlan<Steps = unknown, Fixed = unknown> {
  id: string;
  tool: string;
  /** The call's arguments, as canonicalJson writes them: the second call must give the same. */
  args: string;
  expiresAt: number;
  /** The digest of what the plan read (fingerprint). */
  fingerprint: string;
  steps: Steps;
  /** What the plan fixed when it was made (a window counted back from now, as times), for the reads made again. */
  fixed: Fixed;
}

/** The fingerprint of what a plan read: a digest of it in canonical JSON. */
export const fingerprint = (reads: unknown): string => createHash('sha256').update(canonicalJson(reads)).digest('hex');

export class PlanBook {
  private readonly plans = new Map<string, KeptPlan>();

  constructor(
    private readonly now: () => number,
    private readonly ttlMs = PLAN_TTL_MS,
  ) {}

  /** Keeps a plan; its id (`plan_…`, not guessable) and when it expires. */
  keep<Steps, Fixed>(tool: string, args: unknown, reads: unknown, steps: Steps, fixed: Fixed): KeptPlan<Steps, Fixed> {
    this.forgetExpired();
    const plan: KeptPlan<Steps, Fixed> = {
      id: `plan_${randomBytes(12).toString('base64url')}`,
      tool,
      args: canonicalJson(args),
      expiresAt: this.now() + this.ttlMs,
      fingerprint: fingerprint(reads),
      steps,
      fixed,
    };
    this.plans.set(plan.id, plan);
    return plan;
  }

  /**
   * The plan `id` for a second call of `tool` with `args`, taken out (used once): refused, with nothing done, when no
   * such plan is kept, it expired, or it was made by another tool or for other arguments.
   */
  take<Steps, Fixed>(id: string, tool: string, args: unknown): KeptPlan<Steps, Fixed> {
    const plan = this.plans.get(id);
    const again = `call ${tool} without plan_id to plan it again`;
    if (!plan) throw usageError(`no plan ${JSON.stringify(id)}: it was never made, or it was carried out already; nothing was changed`, again);
    if (plan.tool !== tool) {
      throw usageError(`plan ${id} was made by ${plan.tool}, not ${tool}: nothing was changed`, `call ${plan.tool} with its plan_id`);
    }
    if (plan.args !== canonicalJson(args)) {
      throw usageError(
        `plan ${id} was made for other arguments than these: nothing was changed`,
        `call ${tool} with the arguments the plan was made for and its plan_id, or ${again.replace(/^call \S+ /, '')} for these`,
      );
    }
    this.plans.delete(id);
    if (this.now() > plan.expiresAt) {
      throw usageError(`plan ${id} expired ${elapsed(this.now() - plan.expiresAt)} ago (a plan waits ${elapsed(this.ttlMs)}): nothing was changed`, again);
    }
    return plan as KeptPlan<Steps, Fixed>;
  }

  private forgetExpired(): void {
    for (const [id, plan] of this.plans) if (this.now() > plan.expiresAt) this.plans.delete(id);
  }
}
