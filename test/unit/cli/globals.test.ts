import { Command } from '@commander-js/extra-typings';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { readGlobals, withGlobalOptions } from '../../../src/cli/globals.js';

/** A program with the global options and one verb, parsed as a user typed it; the verb's command is what an action is given. */
function parsed(args: string[]): Command {
  const program = withGlobalOptions(new Command('whsvc').exitOverride());
  const verb = new Command('verb').option('--own <value>').action(() => {});
  program.addCommand(verb);
  program.parse(args, { from: 'user' });
  return verb;
}

describe('the global options', () => {
  it('every one declared reaches the globals, before the verb or after it', () => {
    const before = [
      '--profile',
      'ci',
      '--base-url',
      'http://127.0.0.1:4010',
      '--json',
      '--jq',
      '.data',
      '--no-color',
      '--no-input',
      '--debug',
      '--request-timeout',
      '2s',
    ];
    const expected = {
      profile: 'ci',
      profileSource: '--profile',
      baseUrl: 'http://127.0.0.1:4010',
      baseUrlSource: '--base-url',
      json: true,
      jq: '.data',
      color: false,
      input: false,
      debug: true,
      requestTimeoutMs: 2000,
    };
    expect(readGlobals(parsed([...before, 'verb', '--own', 'x']), {})).toEqual(expected);
    expect(readGlobals(parsed(['verb', '--own', 'x', ...before]), {})).toEqual(expected);
  });

  it('none given: the environment, then the defaults', () => {
    expect(readGlobals(parsed(['verb']), {})).toEqual({
      profile: 'default',
      profileSource: undefined,
      baseUrl: undefined,
      baseUrlSource: undefined,
      json: false,
      jq: undefined,
      color: true,
      input: true,
      debug: false,
      requestTimeoutMs: undefined,
    });
    const env = { WHSVC_PROFILE: 'prod', WHSVC_BASE_URL: 'https://api.example.com', CI: 'true', WHSVC_DEBUG: '1' };
    expect(readGlobals(parsed(['verb']), env)).toMatchObject({
      profile: 'prod',
      profileSource: 'WHSVC_PROFILE',
      baseUrl: 'https://api.example.com',
      baseUrlSource: 'WHSVC_BASE_URL',
      input: false,
      debug: true,
    });
    // A flag wins over its variable.
    expect(readGlobals(parsed(['--profile', 'ci', 'verb']), env)).toMatchObject({ profile: 'ci', profileSource: '--profile' });
  });

  it('--jq implies --json', () => {
    expect(readGlobals(parsed(['verb', '--jq', '.id']), {})).toMatchObject({ json: true, jq: '.id' });
  });

  it("their type is the declaration's: a name not declared is a compile error (tsc checks this file)", () => {
    const flags = withGlobalOptions(new Command('whsvc')).opts();
    // @ts-expect-error --base-url is read as baseUrl; a flag renamed in the declaration leaves no old name to read
    expect(flags.serviceUrl).toBeUndefined();
    expectTypeOf(flags).toEqualTypeOf<{
      profile?: string | undefined;
      baseUrl?: string | undefined;
      json?: true | undefined;
      jq?: string | undefined;
      color: boolean;
      input: boolean;
      debug?: true | undefined;
      requestTimeout?: number | undefined;
      maxAnswerSize?: number | undefined;
    }>();
  });
});
