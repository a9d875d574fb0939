import { afterAll, describe, expect, it } from 'vitest';
import { trigger } from '../helpers/cli.js';
import { json, recoverSetups } from '../helpers/recover.js';

// After an outage: a real receiver that fails for a while and then recovers, the sandbox, and whsvc re-sending what
// failed, all in this process. A recover stopped by a real Ctrl-C or by its reader going away, and recover at a
// terminal, are in test/e2e/recover.test.ts.

const { setup, closeAll } = recoverSetups();
afterAll(closeAll);

describe('deliveries recover against the real sandbox', () => {
  it('re-sends each failed delivery once, skips the delivered, honours --webhook, --event and --since', async () => {
    // The sandbox's clock moves only when told: a point in time between two failures is one it was moved to.
    const s = await setup('main', ['--clock', 'manual']);
    const hookA = await s.webhook('/a', 'invoice.paid,sales_order.created');
    const hookB = await s.webhook('/b', 'invoice.paid');
    await trigger(s.cli, 'sales_order.created', { times: 2 });
    await trigger(s.cli, 'invoice.paid', { times: 3 });
    await s.receiver.waitFor(2 + 3 * 2);
    // The outage ends; one delivery is re-sent by hand before recover runs.
    s.down.value = false;
    const failedA = json(await s.cli(['deliveries', 'list', hookA, '--status', 'failed', '--json'])).data as Array<{ id: string; event: string }>;
    const byHand = failedA.find((d) => d.event === 'sales_order.created')!;
    expect((await s.cli(['deliveries', 'retry', byHand.id])).code).toBe(0);
    // A later failure, after a point in time that --since names: a minute on, on the sandbox's clock.
    const between = json(await s.cli(['sandbox', 'clock', 'advance', '1m', '--json'])).now as string;
    s.down.value = true;
    await trigger(s.cli, 'invoice.paid', { times: 1 });
    await s.receiver.waitFor(2 + 3 * 2 + 1 + 2);
    s.down.value = false;

    const dry = json(await s.cli(['deliveries', 'recover', '--dry-run', '--json']));
    // 2 sales orders (one delivered by hand) + 4 invoices on A, 4 invoices on B.
    expect(dry.summary).toEqual({ selected: 1 + 4 + 4, webhooks: 2 });
    expect(s.receiver.received).toHaveLength(2 + 3 * 2 + 1 + 2);

    const since = json(await s.cli(['deliveries', 'recover', '--dry-run', '--since', between, '--json']));
    expect(since.summary).toEqual({ selected: 2, webhooks: 2 });

    const onlyB = await s.cli(['deliveries', 'recover', '--webhook', hookB, '--event', 'invoice.paid', '--yes', '--json']);
    expect(onlyB.code, onlyB.stderr).toBe(0);
    const b = json(onlyB);
    expect(b.summary).toEqual({ selected: 4, resent: 4, delivered: 4, failed: 0, pending: 0, already_delivered: 0, errors: 0 });
    expect(new Set(b.deliveries.map((d: { webhook_id: string }) => d.webhook_id))).toEqual(new Set([hookB]));

    const rest = await s.cli(['deliveries', 'recover', '--yes']);
    expect(rest.code, rest.stderr).toBe(0);
    expect(rest.stdout).toContain('Re-sent 5 deliveries: 5 delivered, 0 failed again, 0 already delivered, 0 errors.');

    // Every delivery was sent twice in all: once failed, once delivered (by hand or by recover), never more.
    const sends = s.sends();
    expect(sends.size).toBe(2 + 4 * 2);
    for (const [id, count] of sends) expect(count, id).toBe(2);
    // Nothing left: a second run re-sends nothing.
    const again = json(await s.cli(['deliveries', 'recover', '--yes', '--json']));
    expect(again.summary.selected).toBe(0);
  });

  it('survives 429s from --rate-limit: every delivery still re-sent exactly once', async () => {
    const s = await setup('limited', ['--rate-limit', '8']);
    await s.webhook('/r', 'invoice.paid');
    await trigger(s.cli, 'invoice.paid', { times: 16 });
    await s.receiver.waitFor(16);
    s.down.value = false;
    const result = await s.cli(['deliveries', 'recover', '--yes', '--json', '--concurrency', '8']);
    expect(result.code, result.stderr).toBe(0);
    expect(json(result).summary).toMatchObject({ selected: 16, resent: 16, delivered: 16, errors: 0 });
    // Said once, however many waits: not a line a wait over the JSON's reader's log.
    expect(result.stderr.match(/429/g), result.stderr).toEqual(['429']);
    expect(result.stderr).toContain('whsvc: the service answered 429: re-sends wait as it asks (Retry-After), each time it does\n');
    const sends = s.sends();
    expect(sends.size).toBe(16);
    for (const [id, count] of sends) expect(count, id).toBe(2);
  });

  it('without a terminal and without --yes it refuses (exit 2) and sends nothing', async () => {
    const s = await setup('refuse');
    const result = await s.cli(['deliveries', 'recover']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('re-sending needs confirmation: pass --yes');
  });
});
