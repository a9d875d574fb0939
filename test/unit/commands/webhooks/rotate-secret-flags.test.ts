import { describe, expect, it } from 'vitest';
import { NO_PROMPT } from '../../../../src/cli/errors.js';
import { command } from '../../../../src/commands/webhooks/rotate-secret.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const rotate = verb(['webhooks', 'rotate-secret'], command);

describe('webhooks rotate-secret: flags', () => {
  it('the id and --secret-file are required; each flag to its option', async () => {
    expect(await rotate.options(['wh_1', '--secret-file', 'new.secret', '--yes'])).toEqual({
      id: 'wh_1',
      secretFile: 'new.secret',
      dryRun: false,
      yes: true,
      waitMs: 0,
      cancel: false,
      abandonDue: false,
    });
    expect(await rotate.options(['wh_1', '--secret-file', 'new.secret', '-y', '--wait', '10m'])).toMatchObject({ yes: true, waitMs: 600_000 });
    expect(await rotate.options(['wh_1', '--secret-file', 'n', '--cancel', '--yes'])).toMatchObject({ cancel: true });
    expect(await rotate.options(['wh_1', '--secret-file', 'n', '--abandon-due', '--yes'])).toMatchObject({ abandonDue: true });
    expect(await rotate.refused(['wh_1', '--secret-file', 'n', '--cancel', '--abandon-due', '--yes'])).toEqual({
      code: 2,
      stderr: 'whsvc: --abandon-due goes with a rotation that runs, not with --cancel\n',
    });
    expect(await rotate.refused(['wh_1'])).toEqual({ code: 2, stderr: `whsvc: --secret-file is required\n${SEE_HELP}` });
    expect((await rotate.refused(['--secret-file', 'n'])).code).toBe(2);
  });

  it('without --yes: asked on a terminal; without one (or with --no-input, or CI=true) a usage error, but --dry-run only reads', async () => {
    const refusal = {
      code: 2,
      stderr: `whsvc: rotating a secret needs confirmation: pass --yes, or see the plan with --dry-run (${NO_PROMPT})\n`,
    };
    expect(await rotate.refused(['wh_1', '--secret-file', 'n'])).toEqual(refusal);
    expect(await rotate.refused(['wh_1', '--secret-file', 'n', '--no-input'], { terminal: true })).toEqual(refusal);
    expect(await rotate.refused(['wh_1', '--secret-file', 'n', '--cancel'], { terminal: true, env: { CI: 'true' } })).toEqual(refusal);
    expect(await rotate.options(['wh_1', '--secret-file', 'n'], { terminal: true })).toMatchObject({ yes: false });
    expect(await rotate.options(['wh_1', '--secret-file', 'n', '--dry-run'])).toMatchObject({ dryRun: true, yes: false });
  });

  it('a --secret-file that would print the secret, or is empty, is refused before any request', async () => {
    expect(await rotate.refused(['wh_1', '--secret-file', '', '--yes'])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file is empty: give the path of the file to write the new secret to\n',
    });
    expect(await rotate.refused(['wh_1', '--secret-file', '-', '--yes'])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file - would print the secret: give the path of a file to write it to\n',
    });
  });

  it('--wait takes a duration, and goes only with a run that rotates', async () => {
    expect((await rotate.refused(['wh_1', '--secret-file', 'n', '--yes', '--wait', 'soon'])).stderr).toMatch(/^whsvc: --wait soon: must be a duration/);
    expect((await rotate.refused(['wh_1', '--secret-file', 'n', '--yes', '--wait', '2d'])).stderr).toMatch(/must be at most 1d/);
    expect(await rotate.refused(['wh_1', '--secret-file', 'n', '--dry-run', '--wait', '1m'])).toEqual({
      code: 2,
      stderr: 'whsvc: --wait goes with a rotation that runs, not with --dry-run\n',
    });
    expect(await rotate.refused(['wh_1', '--secret-file', 'n', '--cancel', '--yes', '--wait', '1m'])).toEqual({
      code: 2,
      stderr: 'whsvc: --wait goes with a rotation that runs, not with --cancel\n',
    });
  });
});
