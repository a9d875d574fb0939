import { describe, expect, it } from 'vitest';
import { commandPaths, misplacedVerb } from '../../../src/cli/habits.js';
import { buildProgram } from '../../../src/program.js';
import { TOP_COMMANDS } from '../../../src/render/commands.js';

// The habits of gh and stripe users, answered from the command tree: a verb typed without its group
// gets the one line that says what to type.

describe('misplacedVerb', () => {
  const program = buildProgram();

  it("says what to type for stripe's `trigger`, the rest of the line kept in place and quoted for a shell", () => {
    expect(misplacedVerb(program, 'trigger', ['trigger', 'invoice.paid', '--data', '{"id":"inv_1"}'])).toBe(
      `trigger is a command of sandbox: whsvc sandbox trigger invoice.paid --data '{"id":"inv_1"}'`,
    );
    expect(misplacedVerb(program, 'advance', ['--profile', 'dev', 'advance', '1h'])).toBe(
      'advance is a command of sandbox clock: whsvc --profile dev sandbox clock advance 1h',
    );
  });

  it('names every group a verb belongs to, in one line', () => {
    const line = misplacedVerb(program, 'list', ['list'])!;
    expect(line).toMatch(/^list is a command of .*webhooks.* and .*: whsvc .* or whsvc .* list$/);
    for (const group of ['webhooks', 'deliveries', 'auth']) expect(line).toContain(`whsvc ${group} list`);
    expect(line).not.toContain('\n');
  });

  it('knows nothing of what is no verb (a typo gets commander’s suggestion instead), nor of hidden verbs', () => {
    expect(misplacedVerb(program, 'webhoks', ['webhoks'])).toBeUndefined();
    expect(misplacedVerb(program, 'help', ['help'])).toBeUndefined();
  });
});

describe('TOP_COMMANDS', () => {
  it("are the program's top-level commands, by which a line's layout knows a command it says to run (help aside: commandPaths leaves it out)", () => {
    const top = commandPaths(buildProgram()).flatMap((path) => (path.length === 1 ? path : []));
    expect([...top].sort()).toEqual(TOP_COMMANDS.filter((name) => name !== 'help').sort());
  });
});
