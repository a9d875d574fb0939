import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/webhooks/create.js';
import { NO_PROMPT } from '../../../../src/cli/errors.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const create = verb(['webhooks', 'create'], command);
const URL_ = 'https://example.com/hooks';

describe('webhooks create: flags', () => {
  it('each flag to its option; --events is a comma-separated list', async () => {
    expect(await create.options(['--url', URL_, '--events', 'invoice.paid, sales_order.created'])).toEqual({
      url: URL_,
      events: ['invoice.paid', 'sales_order.created'],
      inactive: false,
      secretFile: undefined,
      force: false,
      dryRun: false,
    });
    expect(await create.options(['--url', URL_, '--events', 'invoice.paid', '--inactive', '--secret-file', 'whsec.txt', '--force', '--dry-run'])).toMatchObject(
      {
        inactive: true,
        secretFile: 'whsec.txt',
        force: true,
        dryRun: true,
      },
    );
  });

  it("--url without a scheme, stripe's form: http on this machine, https elsewhere", async () => {
    expect((await create.options(['--url', 'localhost:3000/x', '--events', 'invoice.paid'])).url).toBe('http://localhost:3000/x');
    expect((await create.options(['--url', 'example.com/hooks', '--events', 'invoice.paid'])).url).toBe('https://example.com/hooks');
  });

  it('a URL the service would not take is refused before any request', async () => {
    expect(await create.refused(['--url', 'http://example.com/hooks', '--events', 'invoice.paid'])).toEqual({
      code: 2,
      stderr: 'whsvc: --url "http://example.com/hooks": the URL must use https (http is accepted only for localhost and 127.0.0.1)\n',
    });
    // The user name and password of a URL are never echoed.
    const withPassword = await create.refused(['--url', 'https://me:hunter3@example.com/hooks', '--events', 'invoice.paid']);
    expect(withPassword.code).toBe(2);
    expect(withPassword.stderr).toContain('must not carry a user name or password');
    expect(withPassword.stderr).not.toContain('hunter3');
  });

  it('an event type twice is refused; a value a flag needs is said', async () => {
    expect(await create.refused(['--url', URL_, '--events', 'invoice.paid,invoice.paid'])).toEqual({
      code: 2,
      stderr: `whsvc: --events invoice.paid,invoice.paid: invoice.paid is listed twice\n${SEE_HELP}`,
    });
    expect(await create.refused(['--url'])).toEqual({ code: 2, stderr: `whsvc: --url needs a value\n${SEE_HELP}` });
  });

  it('--secret-file names a file to write: not empty (an unset variable), not - (the secret would be printed)', async () => {
    expect(await create.refused(['--url', URL_, '--events', 'invoice.paid', '--secret-file', ''])).toEqual({
      code: 2,
      stderr: 'whsvc: --secret-file is empty: give the path of the file to write the secret to\n',
    });
    const json = await create.refused(['--url', URL_, '--events', 'invoice.paid', '--secret-file', '', '--json']);
    expect(json.stderr.split('\n')[0]).toBe('whsvc: --secret-file is empty: give the path of the file to write the secret to');
    expect(await create.refused(['--url', URL_, '--events', 'invoice.paid', '--secret-file', '-'])).toEqual({
      code: 2,
      stderr:
        'whsvc: --secret-file - would print the secret: give the path of a file to write it to\nhint: or leave --secret-file out to see it once on the terminal\n',
    });
  });

  it('without a terminal, --url and --events are required (nothing can be asked); on one, they are asked', async () => {
    expect(await create.refused(['--events', 'invoice.paid'])).toEqual({ code: 2, stderr: `whsvc: --url is required (${NO_PROMPT})\n` });
    expect(await create.refused(['--url', URL_])).toEqual({
      code: 2,
      stderr: `whsvc: --events is required, e.g. --events invoice.paid,product.updated (${NO_PROMPT})\n`,
    });
    expect((await create.refused(['--url', URL_, '--events', ''])).stderr.split('\n')[0]).toMatch(/^whsvc: --events is required/);
    // --no-input and CI=true ask nothing on a terminal either.
    expect(await create.refused(['--no-input'], { terminal: true })).toEqual({ code: 2, stderr: `whsvc: --url is required (${NO_PROMPT})\n` });
    expect((await create.refused([], { terminal: true, env: { CI: 'true' } })).stderr).toBe(`whsvc: --url is required (${NO_PROMPT})\n`);
    const asked = await create.ran([], { terminal: true });
    expect(asked.options).toMatchObject({ url: undefined, events: undefined });
    expect(asked.deps.canPrompt).toBe(true);
  });
});
