import { describe, expect, it } from 'vitest';
import type { Webhook } from '../../../../src/api/shapes.js';
import { CliError } from '../../../../src/cli/errors.js';
import { declaredWebhooks, parseDeclarationText } from '../../../../src/commands/webhooks/apply/declaration.js';
import { planApply } from '../../../../src/commands/webhooks/apply/plan.js';

/** The usage error (exit 2) a call throws, sync or async. */
async function usage(call: () => unknown): Promise<CliError> {
  try {
    await call();
  } catch (error) {
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).exitCode).toBe(2);
    return error as CliError;
  }
  throw new Error('expected a usage error');
}

const webhook = (id: string, url: string, events: string[], active = true): Webhook => ({ id, url, events, active, created_at: '2025-01-15T12:00:00Z' });
const declared = (entries: unknown[]) => declaredWebhooks({ webhooks: entries }, 'hooks.json');

describe('webhooks apply: the file', () => {
  it('JSON or YAML (comments allowed) to the same webhooks; active is true unless said', async () => {
    const yaml = `# billing
webhooks:
  - url: https://billing.example.com/hooks   # the main one
    events: [invoice.paid]
  - url: https://ops.example.com/hooks
    events:
      - inventory.changed
    active: false
`;
    const fromYaml = declaredWebhooks(await parseDeclarationText(yaml, 'hooks.yaml'), 'hooks.yaml');
    const json = JSON.stringify({
      webhooks: [
        { url: 'https://billing.example.com/hooks', events: ['invoice.paid'] },
        { url: 'https://ops.example.com/hooks', events: ['inventory.changed'], active: false },
      ],
    });
    const fromJson = declaredWebhooks(await parseDeclarationText(json, 'hooks.json'), 'hooks.json');
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson).toEqual([
      { url: 'https://billing.example.com/hooks', events: ['invoice.paid'], active: true, at: 'webhooks[0]' },
      { url: 'https://ops.example.com/hooks', events: ['inventory.changed'], active: false, at: 'webhooks[1]' },
    ]);
  });

  it('each URL in the form the service keeps (the key): host lower-cased, default port dropped', () => {
    expect(declared([{ url: 'HTTPS://Billing.Example.com:443/hooks', events: ['invoice.paid'] }])[0]!.url).toBe('https://billing.example.com/hooks');
  });

  it('a file that does not parse names the line (YAML) or the problem (JSON)', async () => {
    expect((await usage(() => parseDeclarationText('webhooks:\n  - url: x\n   events: [a]\n', 'h.yml'))).message).toBe(
      'h.yml is not YAML: bad indentation of a sequence entry (line 3, column 4)',
    );
    expect((await usage(() => parseDeclarationText('{"webhooks": [}', 'h.json'))).message).toMatch(/^h\.json is not JSON: /);
  });

  it('a key given twice is refused in JSON as in YAML: a second "webhooks": [] must never empty the list (and --prune delete it all)', async () => {
    const twice = '{ "webhooks": [ {"url": "https://example.com/h", "events": ["invoice.paid"]} ],\n  "webhooks": [] }';
    expect((await usage(() => parseDeclarationText(twice, 'h.json'))).message).toBe(
      'h.json is not JSON whose keys are each given once: duplicated mapping key (line 2, column 4)',
    );
    const inEntry = '{"webhooks": [{"url": "https://a.example/h", "url": "https://b.example/h", "events": ["invoice.paid"]}]}';
    expect((await usage(() => parseDeclarationText(inEntry, 'h.json'))).message).toMatch(
      /^h\.json is not JSON whose keys are each given once: duplicated mapping key/,
    );
    // The same data with each key once reads as before.
    const once = '{"webhooks": [{"url": "https://a.example/h", "events": ["invoice.paid"]}]}';
    expect(await parseDeclarationText(once, 'h.json')).toEqual(JSON.parse(once));
  });

  it('YAML 1.2: `active: no` is the string "no", refused rather than read as false', async () => {
    const data = await parseDeclarationText('webhooks:\n  - url: https://a.example/h\n    events: [invoice.paid]\n    active: no\n', 'h.yaml');
    expect((await usage(() => declaredWebhooks(data, 'h.yaml'))).message).toBe('h.yaml: webhooks[0].active (https://a.example/h): must be true or false');
  });

  it('every mistake names where it is: unknown fields (with a suggestion), a bad URL, events missing or twice', async () => {
    expect((await usage(() => declared([{ url: 'https://a.example/h', event: ['invoice.paid'] }]))).message).toBe(
      'hooks.json: webhooks[0] (https://a.example/h): unknown field "event"; did you mean events? (a webhook has url, events and active)',
    );
    expect((await usage(() => declared([{ url: 'http://a.example/h', events: ['invoice.paid'] }]))).message).toContain(
      'webhooks[0].url: the URL must use https',
    );
    expect((await usage(() => declared([{ url: 'https://a.example/h', events: [] }]))).message).toContain(
      'webhooks[0].events (https://a.example/h): must be a list of one or more',
    );
    expect((await usage(() => declared([{ url: 'https://a.example/h', events: ['a', 'a'] }]))).message).toContain('a is listed twice');
    expect((await usage(() => declaredWebhooks({ webhook: [] }, 'hooks.json'))).message).toContain(
      'unknown field "webhook" at the top; did you mean webhooks?',
    );
    expect((await usage(() => declaredWebhooks([], 'hooks.json'))).message).toContain('must hold an object with a "webhooks" list');
  });

  it('every mistake of the file at once, each where it is (the entry, and its URL where it can be read); a misspelt field said once', async () => {
    const error = await usage(() =>
      declaredWebhooks(
        {
          webhook: [],
          webhooks: [
            { url: 'https://a.example/h', events: ['invoice.paid'] },
            { url: 'http://b.example/h', evnets: ['invoice.paid'] },
            'https://c.example/h',
            { url: 'https://d.example/h', events: ['product.updated', 'product.updated'], active: 'yes' },
            { url: 'https://A.example:443/h', events: ['invoice.paid'] },
          ],
        },
        'hooks.json',
      ),
    );
    expect(error.message.split('\n')).toEqual([
      'hooks.json has 7 mistakes; nothing was changed:',
      '  unknown field "webhook" at the top; did you mean webhooks?',
      '  webhooks[1]: unknown field "evnets"; did you mean events? (a webhook has url, events and active)',
      '  webhooks[1].url: the URL must use https (http is accepted only for localhost and 127.0.0.1)',
      '  webhooks[2]: each webhook is an object with url and events',
      '  webhooks[3].events (https://d.example/h): product.updated is listed twice',
      '  webhooks[3].active (https://d.example/h): must be true or false',
      '  webhooks[4]: https://a.example/h is declared twice, at webhooks[0] and webhooks[4]',
    ]);
  });

  it('two entries for one URL (however spelt) are an error naming both', async () => {
    const error = await usage(() =>
      declared([
        { url: 'https://a.example/h', events: ['invoice.paid'] },
        { url: 'https://b.example/h', events: ['invoice.paid'] },
        { url: 'https://A.example:443/h', events: ['product.updated'] },
      ]),
    );
    expect(error.message).toBe('hooks.json: webhooks[2]: https://a.example/h is declared twice, at webhooks[0] and webhooks[2]');
  });
});

describe('webhooks apply: the plan', () => {
  const file = declared([
    { url: 'https://a.example/h', events: ['invoice.paid'] },
    { url: 'https://b.example/h', events: ['invoice.paid', 'product.updated'] },
    { url: 'https://c.example/h', events: ['sales_order.created'], active: false },
    { url: 'https://d.example/h', events: ['invoice.paid'] },
  ]);
  const account = [
    webhook('wh_b', 'https://b.example/h', ['product.updated', 'invoice.paid']),
    webhook('wh_c', 'https://c.example/h', ['invoice.paid'], true),
    webhook('wh_d', 'https://d.example/h', ['invoice.paid'], false),
    webhook('wh_x', 'https://x.example/h', ['invoice.paid']),
  ];

  it('creates what is missing, updates only the fields that differ (events as a set), leaves the rest', () => {
    expect(planApply(file, account, false)).toEqual({
      create: [{ url: 'https://a.example/h', events: ['invoice.paid'], active: true }],
      update: [
        {
          id: 'wh_c',
          url: 'https://c.example/h',
          changes: { events: { from: ['invoice.paid'], to: ['sales_order.created'] }, active: { from: true, to: false } },
          events: ['sales_order.created'],
          active: false,
        },
        { id: 'wh_d', url: 'https://d.example/h', changes: { active: { from: false, to: true } }, events: ['invoice.paid'], active: true },
      ],
      delete: [],
      unchanged: [{ id: 'wh_b', url: 'https://b.example/h' }],
      notInFile: [{ id: 'wh_x', url: 'https://x.example/h' }],
    });
  });

  it('with prune, what the file does not name is deleted', () => {
    const plan = planApply(file, account, true);
    expect(plan.delete).toEqual([{ id: 'wh_x', url: 'https://x.example/h' }]);
    expect(plan.notInFile).toEqual([]);
  });

  it('the account as declared: nothing to do', () => {
    const same = declared([{ url: 'https://b.example/h', events: ['invoice.paid', 'product.updated'] }]);
    expect(planApply(same, [account[0]!], true)).toEqual({
      create: [],
      update: [],
      delete: [],
      unchanged: [{ id: 'wh_b', url: 'https://b.example/h' }],
      notInFile: [],
    });
  });

  it('an account URL spelt otherwise than the file keeps its key (another service may not store it normalised)', () => {
    const plan = planApply(
      declared([{ url: 'https://b.example/h', events: ['invoice.paid'] }]),
      [webhook('wh_B', 'HTTPS://B.EXAMPLE/h', ['invoice.paid'])],
      true,
    );
    expect(plan.unchanged).toEqual([{ id: 'wh_B', url: 'HTTPS://B.EXAMPLE/h' }]);
    expect(plan.delete).toEqual([]);
  });

  it('two webhooks of the account with a URL the file names: an error naming both, before anything', async () => {
    const twins = [webhook('wh_1', 'https://a.example/h', ['invoice.paid']), webhook('wh_2', 'https://a.example/h', ['invoice.paid'])];
    const error = await usage(() => planApply(declared([{ url: 'https://a.example/h', events: ['invoice.paid'] }]), twins, false));
    expect(error.message).toBe(
      'webhooks wh_1 and wh_2 both have the URL https://a.example/h (declared at webhooks[0]): apply cannot tell which one the file means; nothing was changed',
    );
    expect(error.hint).toBe('delete the one to drop: whsvc webhooks delete wh_2');
  });

  it('two of the account with a URL the file does not name: left alone, or both deleted with prune', () => {
    const twins = [webhook('wh_1', 'https://z.example/h', ['invoice.paid']), webhook('wh_2', 'https://z.example/h', ['invoice.paid'])];
    expect(planApply([], twins, false).notInFile.map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
    expect(planApply([], twins, true).delete.map((w) => w.id)).toEqual(['wh_1', 'wh_2']);
  });
});
