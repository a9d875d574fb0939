import { createHash, randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { usageError } from '../../cli/errors.js';
import { canonicalJson } from '../../exact-json.js';
import { ensureDirectory, readOwnFile, removeOwnFile, ReservedFile } from '../../files/user-file.js';
import { elapsed } from '../../render/words.js';

// The plans of `whsvc mcp`'s write tools: a write tool called without a plan id plans (reads, changes nothing) and
// keeps the plan; called again with the same arguments and the plan's id, it carries out the steps kept, once the
// same reads, made again, give the same fingerprint. A plan is used once, and expires.
//
// Each plan is a file of its own (`<id>.json`, 0600) in a directory under the config directory, so that a client
// which starts a server for each call (mcporter's `call --stdio`) carries out a plan a server before made. A plan
// holds digests, not values, of the call's arguments, of what it will change and of what it read: the second call
// gives the arguments again, its plan made again gives the steps, and they are carried out when their digests are the
// kept ones. So no URL's password (`https://user:pass@host/hook`, an agent's or one the account holds) is kept on
// disk, nor any secret (a create's secret is given only when it is carried out, and goes to --secret-dir).

/** How long a plan may wait for its second call: long enough for an agent to show it and be told to go on. */
export const PLAN_TTL_MS = 10 * 60_000;

/** How many plans are kept: the newest; an older one is said to be unknown. */
export const PLANS_KEPT = 100;

/**
 * The version of the plan files this whsvc writes and reads (1: the files with no version, which kept the call's
 * arguments themselves). A plan of another version, older or later, is refused as another whsvc's, never misread.
 */
const PLAN_VERSION = 2;

/** A plan id as keep makes them: nothing else is looked for as a file. */
const PLAN_ID = /^plan_[\w-]{16}$/;

/** A plan kept for its second call. */
export interface KeptPlan<Fixed = unknown> {
  /** PLAN_VERSION, as the whsvc that made it had it. */
  version: number;
  id: string;
  tool: string;
  /** The digest of the call's arguments (planDigest): the second call must give the same. */
  args: string;
  expiresAt: number;
  /** The service and client the plan was made for: another server's plan is not carried out against another account. */
  account: string;
  /** The digest of what the plan read (fingerprint). */
  fingerprint: string;
  /** The digest of what the plan will change (planDigest): the plan made again must come to the same steps. */
  steps: string;
  /** What the plan fixed when it was made (a window counted back from now, as times), for the reads made again. */
  fixed: Fixed;
}

/** The fingerprint of what a plan read: a digest of it in canonical JSON. */
export const fingerprint = (reads: unknown): string => createHash('sha256').update(canonicalJson(reads)).digest('hex');

/** A digest of a plan's arguments or steps in canonical JSON, salted with the plan's id: what may hold a URL's password. */
export const planDigest = (id: string, value: unknown): string =>
  createHash('sha256')
    .update(`${id}\n${canonicalJson(value)}`)
    .digest('hex');

export class PlanBook {
  constructor(
    /** Where the plans are kept (`<config dir>/mcp-plans`). */
    private readonly dir: string,
    /** The service and client of this server (`https://… client_id`): a plan is carried out only against its own. */
    private readonly account: string,
    private readonly now: () => number,
    private readonly ttlMs = PLAN_TTL_MS,
  ) {}

  /** Keeps a plan; its id (`plan_…`, not guessable) and when it expires. */
  keep<Fixed>(tool: string, args: unknown, reads: unknown, steps: unknown, fixed: Fixed): KeptPlan<Fixed> {
    ensureDirectory(this.dir, 'the plans directory');
    const id = `plan_${randomBytes(12).toString('base64url')}`;
    const plan: KeptPlan<Fixed> = {
      version: PLAN_VERSION,
      id,
      tool,
      args: planDigest(id, args),
      expiresAt: this.now() + this.ttlMs,
      account: this.account,
      fingerprint: fingerprint(reads),
      steps: planDigest(id, steps),
      fixed,
    };
    ReservedFile.reserve(this.pathOf(plan.id), 'the plan', false).write(`${JSON.stringify(plan)}\n`);
    this.forgetOld();
    return plan;
  }

  /**
   * The plan `id` for a second call of `tool` with `args`, taken out (used once): refused, with nothing done, when no
   * such plan is kept, it expired, or it was made by another tool, for other arguments or for another account.
   */
  take<Fixed>(id: string, tool: string, args: unknown): KeptPlan<Fixed> {
    const again = `call ${tool} without plan_id to plan it again`;
    const plan = this.read(id);
    if (!plan) {
      throw usageError(
        `no plan ${JSON.stringify(id)}: it was never made (plans are kept in ${this.dir}: a server started with another config directory knows none), it was carried out already, or it expired; nothing was changed`,
        again,
      );
    }
    if (plan.version !== PLAN_VERSION) {
      throw usageError(`plan ${id} was made by another version of whsvc, whose plans this one does not read: nothing was changed`, again);
    }
    if (plan.tool !== tool) {
      throw usageError(`plan ${id} was made by ${plan.tool}, not ${tool}: nothing was changed`, `call ${plan.tool} with its plan_id`);
    }
    if (plan.args !== planDigest(id, args)) {
      throw usageError(
        `plan ${id} was made for other arguments than these: nothing was changed`,
        `call ${tool} with the arguments the plan was made for and its plan_id, or ${again.replace(/^call \S+ /, '')} for these`,
      );
    }
    if (plan.account !== this.account) {
      throw usageError(`plan ${id} was made for another service or client than this server's: nothing was changed`, again);
    }
    // Removing it is taking it: of two servers given one plan at once, only the one that removed it carries it out.
    if (!this.forget(id)) throw usageError(`plan ${id} was carried out already: nothing was changed`, again);
    if (this.now() > plan.expiresAt) {
      throw usageError(`plan ${id} expired ${elapsed(this.now() - plan.expiresAt)} ago (a plan waits ${elapsed(this.ttlMs)}): nothing was changed`, again);
    }
    return plan as KeptPlan<Fixed>;
  }

  private pathOf(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  /** The plan kept as `id`; undefined when none is (nor can be: not an id keep makes), or its file is not one keep wrote. */
  private read(id: string): KeptPlan | undefined {
    if (!PLAN_ID.test(id)) return undefined;
    const text = readOwnFile(this.pathOf(id), 'the plan', 16 * 1024 * 1024);
    if (text === undefined) return undefined;
    try {
      const plan = JSON.parse(text) as KeptPlan;
      return plan.id === id ? plan : undefined;
    } catch {
      return undefined;
    }
  }

  /** Removes plan `id`'s file: true when this call removed it. */
  private forget(id: string): boolean {
    try {
      return removeOwnFile(this.pathOf(id), 'the plan');
    } catch {
      return false;
    }
  }

  /** When plan `id` expires; 0 (long ago) for a file that is not a plan keep wrote. */
  private expiryOf(id: string): number {
    try {
      return this.read(id)?.expiresAt ?? 0;
    } catch {
      return 0;
    }
  }

  /** Removes the plans expired, and those past the PLANS_KEPT newest. */
  private forgetOld(): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const plans = names
      .map((name) => name.replace(/\.json$/, ''))
      .filter((id) => PLAN_ID.test(id))
      .map((id) => ({ id, expiresAt: this.expiryOf(id) }))
      .sort((a, b) => b.expiresAt - a.expiresAt);
    for (const [index, plan] of plans.entries()) if (index >= PLANS_KEPT || this.now() > plan.expiresAt) this.forget(plan.id);
  }
}
