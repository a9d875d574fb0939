import { describe, expect, it } from 'vitest';
import { candidates } from '../../../../src/commands/completion/completion.js';
import { buildProgram } from '../../../../src/program.js';

// What the completion scripts offer, from the command tree: commands, flags, a flag's values and an
// argument's (an event type for `sandbox trigger`, a shell for `completion`).

const CATALOG = ['invoice.paid', 'inventory.changed', 'product.updated'];

describe('completion candidates', () => {
  const program = buildProgram();
  const complete = (...words: string[]) => candidates(program, words, async () => CATALOG);

  it('offers event types for sandbox trigger, as for --event and --events', async () => {
    expect(await complete('sandbox', 'trigger', 'inv')).toEqual(['invoice.paid', 'inventory.changed']);
    expect(await complete('sandbox', 'trigger', '')).toEqual(CATALOG);
    expect(await complete('--profile', 'dev', 'sandbox', 'trigger', '--data', '{}', 'pro')).toEqual(['product.updated']);
    expect(await complete('test', 'wh_1', '--event', 'pro')).toEqual(['product.updated']);
    expect(await complete('webhooks', 'create', '--events', 'invoice.paid,inv')).toEqual(['invoice.paid,inventory.changed']);
  });

  it('offers nothing for an argument past the last, nor for one with no set of values', async () => {
    expect(await complete('sandbox', 'trigger', 'invoice.paid', '')).toEqual([]);
    expect(await complete('webhooks', 'get', '')).toEqual([]);
  });

  it("offers a flag's own values: --clock wall or manual", async () => {
    expect(await complete('sandbox', 'start', '--clock', '')).toEqual(['wall', 'manual']);
    expect(await complete('sandbox', 'start', '--clock', 'm')).toEqual(['manual']);
  });

  it('offers the shells, powershell among them', async () => {
    expect(await complete('completion', '')).toEqual(['bash', 'zsh', 'fish', 'powershell']);
    expect(await complete('completion', 'p')).toEqual(['powershell']);
  });

  it('still offers commands and flags', async () => {
    expect(await complete('sandbox', '')).toEqual(['start', 'clock', 'trigger']);
    expect(await complete('sandbox', 'trigger', '--d')).toEqual(['--data', '--debug']);
  });
});
