import type * as z from 'zod';
import type { CommandDeps } from '../../cli/context.js';
import { CliError, ExitCode } from '../../cli/errors.js';
import type { ToolOutcome } from './call.js';
import { fingerprint, planDigest } from './plans.js';
import { type AnyTool, defineTool, type ToolContext, type ToolSpec, type Zod } from './tools.js';

// A write tool of `whsvc mcp`: called without plan_id it plans (reads, and changes nothing) and answers the plan with
// its id; called again with the same arguments and that plan_id it makes the plan again and, when what it read and
// the steps it comes to are those the plan was made with (their digests, kept: plans.ts), carries out those steps:
// exactly those it showed.

/** What a plan is made of. */
export interface Planned<Steps, Fixed, Extra = undefined> {
  /** What would change, as the command's --dry-run shows it. */
  shown: unknown;
  /** What the plan read and depends on: its fingerprint is checked again before the steps are carried out. */
  reads: unknown;
  /** What a second call carries out. */
  steps: Steps;
  /** What the plan fixed when first made (a window counted back from now, as times): given to the reads made again. */
  fixed: Fixed;
  /** Said with the plan: what cannot be undone, what arrives twice. */
  warnings?: string[] | undefined;
  /** Nothing to change: no plan is kept. */
  nothing?: boolean | undefined;
  /** What else the reads found that the steps need (the --secret-dir journal, checked against the account read). */
  extra?: Extra | undefined;
}

export interface PlannedToolSpec<I extends z.ZodObject, Steps, Fixed, Extra> extends Omit<ToolSpec<I>, 'run' | 'kind'> {
  plan(args: z.output<I>, deps: CommandDeps, context: ToolContext, fixed: Fixed | undefined): Promise<Planned<Steps, Fixed, Extra>>;
  /** Carries out the steps; `fresh` is the plan made again just now, whose reads and steps were found as the plan's. */
  carryOut(steps: Steps, deps: CommandDeps, context: ToolContext, fresh: Planned<Steps, Fixed, Extra>): Promise<ToolOutcome>;
}

/** A write tool that plans first: its input is the spec's with plan_id added. */
export function plannedTool<I extends z.ZodObject, Steps, Fixed = undefined, Extra = undefined>(
  zod: Zod,
  spec: PlannedToolSpec<I, Steps, Fixed, Extra>,
): AnyTool {
  const planId = zod
    .string()
    .min(1)
    .optional()
    .describe('the plan_id a first call (without it) answered: carries that plan out, given with the same arguments; without it, nothing is changed');
  const input = spec.input.extend({ plan_id: planId });
  return defineTool({
    ...spec,
    kind: 'write',
    planned: true,
    input,
    run: async (given, deps, context) => {
      const { plan_id: id, ...args } = given as z.output<I> & { plan_id?: string | undefined };
      if (id === undefined) return plan(spec, args as z.output<I>, deps, context);
      return context.alone(async () => {
        const kept = context.plans.take<Fixed>(id, spec.name, args);
        const fresh = await spec.plan(args as z.output<I>, deps, context, kept.fixed);
        if (fingerprint(fresh.reads) !== kept.fingerprint) {
          throw new CliError(
            `the account changed since plan ${id} was made (what it read is not as it was): nothing was changed`,
            ExitCode.failure,
            `call ${spec.name} without plan_id for a plan of the account as it is now`,
          );
        }
        if (planDigest(kept.id, fresh.steps) !== kept.steps) {
          throw new CliError(
            `what plan ${id} would do now differs from the plan shown (what it read is as it was): nothing was changed`,
            ExitCode.failure,
            `call ${spec.name} without plan_id for a new plan`,
          );
        }
        const outcome = await spec.carryOut(fresh.steps, deps, context, fresh);
        return { ...outcome, notes: [`carried out plan ${id}`, ...(outcome.notes ?? [])] };
      });
    },
  });
}

async function plan<I extends z.ZodObject, Steps, Fixed, Extra>(
  spec: PlannedToolSpec<I, Steps, Fixed, Extra>,
  args: z.output<I>,
  deps: CommandDeps,
  context: ToolContext,
): Promise<ToolOutcome> {
  const planned = await spec.plan(args, deps, context, undefined);
  const warnings = planned.warnings ?? [];
  if (planned.nothing) return { value: { plan_id: null, plan: planned.shown, warnings }, notes: ['nothing to change: no plan was kept', ...warnings] };
  const kept = context.plans.keep(spec.name, args, planned.reads, planned.steps, planned.fixed);
  const next = `nothing was changed. To carry out this plan, call ${spec.name} again with the same arguments and plan_id ${JSON.stringify(kept.id)} (before ${new Date(kept.expiresAt).toISOString()})`;
  return {
    value: { plan_id: kept.id, expires_at: new Date(kept.expiresAt).toISOString(), plan: planned.shown, warnings },
    notes: [...warnings, next],
  };
}
