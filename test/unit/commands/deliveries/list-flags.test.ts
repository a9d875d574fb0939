import { describe, expect, it } from 'vitest';
import { command } from '../../../../src/commands/deliveries/list.js';
import { SEE_HELP, verb } from '../../../helpers/verb.js';

const list = verb(['deliveries', 'list'], command);

describe('deliveries list: flags', () => {
  it("a webhook's log, one page by default; each flag to its option", async () => {
    expect(await list.options(['wh_1'])).toEqual({ webhookId: 'wh_1', status: undefined, limit: undefined, cursor: undefined, all: false });
    expect(await list.options(['wh_1', '--status', 'failed', '--limit', '1', '--cursor', 'c_9', '--all'])).toEqual({
      webhookId: 'wh_1',
      status: 'failed',
      limit: 1,
      cursor: 'c_9',
      all: true,
    });
  });

  it('--status is delivered, failed or pending, with a suggestion for a near miss', async () => {
    expect(await list.refused(['wh_x', '--status', 'faild'])).toEqual({
      code: 2,
      stderr: `whsvc: --status faild: use one of delivered, failed, pending; did you mean failed?\n${SEE_HELP}`,
    });
    expect((await list.refused(['wh_x', '--status', 'fail'])).stderr.split('\n')[0]).toBe(
      'whsvc: --status fail: use one of delivered, failed, pending; did you mean failed?',
    );
  });

  it('the webhook id cannot be a path; its page holds 200 at most, and the hint names the list that holds more', async () => {
    expect((await list.refused(['..'])).stderr.split('\n')[0]).toBe('whsvc: ".." is not a webhook id: it would name the collection, not one of its items');
    expect(await list.refused(['wh_1', '--limit', '500'])).toEqual({
      code: 2,
      stderr:
        "whsvc: --limit 500: must be an integer from 1 to 200\nhint: a page of a webhook's log holds 200 at most: --all reads every page, or `--webhook wh_1 --limit 500` lists its 500 newest\n",
    });
  });
});

const NO_FILTER = { webhooks: [], events: [], since: undefined, until: undefined, payloadId: undefined };

describe('deliveries list across webhooks: flags', () => {
  it('without a webhook id: every webhook, the 50 newest; --limit counts rows, --all every match', async () => {
    expect(await list.options([])).toEqual({ status: undefined, limit: 50, all: false, across: NO_FILTER });
    expect(await list.options(['--limit', '5000', '--status', 'failed'])).toEqual({ status: 'failed', limit: 5000, all: false, across: NO_FILTER });
    expect(await list.options(['--all'])).toEqual({ status: undefined, limit: undefined, all: true, across: NO_FILTER });
    expect((await list.refused(['--limit', '1000001'])).stderr.split('\n')[0]).toBe('whsvc: --limit 1000001: must be an integer from 1 to 1000000');
  });

  it('each filter to its option: --webhook and --event repeatable (--event also a comma list), each value once', async () => {
    const options = await list.options(
      '--webhook wh_1 --webhook wh_2 --webhook wh_1 --event invoice.paid --event sales_order.created,invoice.paid --since 2h --until 2026-11-23T08:00:00Z --payload-id inv_42'.split(
        ' ',
      ),
    );
    expect(options.across).toEqual({
      webhooks: ['wh_1', 'wh_2'],
      events: ['invoice.paid', 'sales_order.created'],
      since: { ago: 2 * 3_600_000 },
      until: { at: Date.parse('2026-11-23T08:00:00Z') },
      payloadId: 'inv_42',
    });
  });

  it('a webhook id with a filter its log has not is the list across webhooks, of that webhook', async () => {
    expect(await list.options(['wh_1', '--event', 'invoice.paid', '--webhook', 'wh_2'])).toEqual({
      status: undefined,
      limit: 50,
      all: false,
      across: { ...NO_FILTER, webhooks: ['wh_1', 'wh_2'], events: ['invoice.paid'] },
    });
    expect((await list.options(['wh_1', '--payload-id', 'inv_1'])).across?.webhooks).toEqual(['wh_1']);
  });

  it('what cannot work is refused before any request: a cursor, --all with --limit, an empty window or value', async () => {
    for (const args of [
      ['--cursor', 'c_9'],
      ['wh_1', '--since', '2h', '--cursor', 'c_9'],
    ]) {
      expect(await list.refused(args)).toEqual({
        code: 2,
        stderr:
          "whsvc: --cursor pages one webhook's log (deliveries list WEBHOOK_ID --cursor C): the list across webhooks has no cursor\nhint: show more with --limit N or --all, or older ones with --until TIME\n",
      });
    }
    expect((await list.refused(['--all', '--limit', '5'])).stderr).toBe('whsvc: --all lists every match and --limit N the N newest: give one of them\n');
    expect((await list.options(['wh_1', '--all', '--limit', '5'])).limit).toBe(5);
    expect((await list.refused(['--since', '1h', '--until', '2h'])).stderr).toBe('whsvc: --since is later than --until: nothing can be in between\n');
    expect((await list.refused(['--event', ','])).stderr.split('\n')[0]).toBe('whsvc: --event ,: is empty: give an event type, such as invoice.paid');
    expect((await list.refused(['--payload-id', ' '])).stderr).toBe('whsvc: --payload-id is empty: give the id in the payload, such as inv_…\n');
    expect((await list.refused(['--since', 'yesterday'])).code).toBe(2);
  });
});
