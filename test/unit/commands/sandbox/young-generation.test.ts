import { describe, expect, it } from 'vitest';
import { boundedCommandLine, type NodeProcess, SANDBOX_SEMI_SPACE_MB } from '../../../../src/commands/sandbox/young-generation.js';

const bound = `--max-semi-space-size=${SANDBOX_SEMI_SPACE_MB}`;
const node = (over: Partial<NodeProcess> = {}): NodeProcess => ({
  platform: 'linux',
  execPath: '/usr/bin/node',
  execArgv: [],
  argv: ['/usr/bin/node', '/opt/whsvc/bin/whsvc.cjs', 'sandbox', 'start', '--port', '0'],
  env: {},
  hasChannel: false,
  mayExec: true,
  ...over,
});

describe('boundedCommandLine: sandbox start starts Node again with the young generation bounded', () => {
  it("the bound first, then node's own flags, then the script and its arguments as given", () => {
    expect(boundedCommandLine(node({ execArgv: ['--enable-source-maps'] }))).toEqual([
      '/usr/bin/node',
      bound,
      '--enable-source-maps',
      '/opt/whsvc/bin/whsvc.cjs',
      'sandbox',
      'start',
      '--port',
      '0',
    ]);
  });

  it("a bound of the user's own wins, however it is spelled or wherever it is given", () => {
    for (const execArgv of [['--max-semi-space-size=32'], ['--max_semi_space_size=32'], ['--max-semi-space-size', '32']]) {
      expect(boundedCommandLine(node({ execArgv })), execArgv.join(' ')).toBeUndefined();
    }
    for (const NODE_OPTIONS of ['--max-semi-space-size=64', '--trace-warnings  --max_semi_space_size=8', '"--max-semi-space-size=32" --no-warnings']) {
      expect(boundedCommandLine(node({ env: { NODE_OPTIONS } })), NODE_OPTIONS).toBeUndefined();
    }
    expect(boundedCommandLine(node({ env: { NODE_OPTIONS: '--no-warnings "--title=max semi"' } }))).toContain(bound);
  });

  it('runs as it is where a new start would lose something: Windows, a debugger, an IPC channel, no permission to exec', () => {
    expect(boundedCommandLine(node({ platform: 'win32' }))).toBeUndefined();
    expect(boundedCommandLine(node({ execArgv: ['--inspect-brk'] }))).toBeUndefined();
    expect(boundedCommandLine(node({ env: { NODE_OPTIONS: '--inspect=9230' } }))).toBeUndefined();
    expect(boundedCommandLine(node({ hasChannel: true }))).toBeUndefined();
    expect(boundedCommandLine(node({ mayExec: false }))).toBeUndefined();
    // Not a debugger flag: a bound is still given.
    expect(boundedCommandLine(node({ execArgv: ['--inspect-port=0'] }))).toContain(bound);
  });
});
