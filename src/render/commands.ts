/**
 * whsvc's top-level commands, as typed after `whsvc`: the program registers exactly these (program.ts's REGISTRARS,
 * which the compiler holds to this list, and `help`), and a line's layout knows a command it says to run by them
 * (wrap.ts: `whsvc webhooks list --json` is kept whole, `whsvc stops there` is prose).
 */
export const TOP_COMMANDS = [
  'sandbox',
  'login',
  'logout',
  'auth',
  'webhooks',
  'events',
  'test',
  'deliveries',
  'listen',
  'replay',
  'verify',
  'sign',
  'send',
  'check-receiver',
  'api',
  'mcp',
  'completion',
  'help',
] as const;

export type TopCommand = (typeof TOP_COMMANDS)[number];
