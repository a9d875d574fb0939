import { defaultTransport } from '../../api/transport.js';
import { checkEventTypes } from '../../cli/catalog.js';
import { usageError } from '../../cli/errors.js';
import { duration } from '../../cli/parse.js';
import { run as clock, isoTime } from '../sandbox/clock.js';
import { run as trigger } from '../sandbox/trigger.js';
import { callDeps } from './call.js';
import { asJson } from './read-tools.js';
import { type AnyTool, defineTool, parsedBy, type Zod } from './tools.js';

// The sandbox's own tools, offered when the profile points at a whsvc sandbox (server.ts asks its clock): an agent
// makes an event occur and moves a manual clock, to reproduce a failure end to end. They change the sandbox, not the
// account's webhooks: no plan, but offered only where writes are.

/** The longest move of the clock, as `sandbox clock advance` takes it. */
const MAX_ADVANCE_MS = 10 * 365 * 86_400_000;

export const sandboxTools = (z: Zod): AnyTool[] => [
  defineTool({
    name: 'sandbox_clock',
    title: "The sandbox's clock",
    description: "The sandbox's time, whether its clock is manual, and the automatic attempts due next, as `whsvc sandbox clock --json` prints it.",
    kind: 'read',
    sandbox: true,
    input: z.strictObject({}),
    run: (_args, deps) => asJson(deps, (d) => clock({ action: 'show' }, d)),
  }),
  defineTool({
    name: 'sandbox_trigger',
    title: 'Trigger an event in the sandbox',
    description:
      'Makes an event occur in the sandbox: each active webhook subscribed to it gets a delivery, as `whsvc sandbox trigger TYPE --json` prints it (the event id and the id of each delivery).',
    kind: 'write',
    sandbox: true,
    input: z.strictObject({
      event_type: z.string().min(1).describe('an event type of the catalog, e.g. invoice.paid'),
      data: z.record(z.string(), z.unknown()).optional().describe('fields to set in the payload'),
    }),
    async run(args, deps) {
      await checkEventTypes(deps, [args.event_type], 'event_type');
      const call = callDeps(deps);
      await trigger(
        { eventType: args.event_type, data: args.data, baseUrl: new URL(deps.api.baseUrl), json: true },
        { ...call.deps, transport: defaultTransport(deps.env) },
      );
      return { value: call.json.value, notes: call.said() };
    },
  }),
  defineTool({
    name: 'sandbox_clock_advance',
    title: "Move the sandbox's clock forward",
    description:
      'Moves a manual clock (sandbox start --clock manual) forward, sending every attempt due on the way, in order, as `whsvc sandbox clock advance D --json` does; answered once the jump is done.',
    kind: 'write',
    sandbox: true,
    input: z.strictObject({ by: parsedBy(z, duration(MAX_ADVANCE_MS)).describe('how far: 90s, 30m, 2h, 3d') }),
    run: (args, deps) => asJson(deps, (d) => clock({ action: 'advance', ms: duration(MAX_ADVANCE_MS)(args.by) }, d)),
  }),
  defineTool({
    name: 'sandbox_clock_set',
    title: "Set the sandbox's clock",
    description: 'Moves a manual clock forward to a time (never back), sending what falls due on the way, as `whsvc sandbox clock set T --json` does.',
    kind: 'write',
    sandbox: true,
    input: z.strictObject({ to: z.string().describe('an ISO 8601 time, e.g. 2030-01-01T00:00:00Z') }),
    run: (args, deps) => {
      let to: string;
      try {
        to = isoTime(args.to);
      } catch (error) {
        throw usageError(`to: ${(error as Error).message}`);
      }
      return asJson(deps, (d) => clock({ action: 'set', to }, d));
    },
  }),
];
