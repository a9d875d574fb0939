import { describe, expect, it } from 'vitest';
import { TAIL_USER_AGENT } from '../../../../src/commands/deliveries/tail/forward.js';
import { rebuiltHeaderLines, TailSource } from '../../../../src/commands/deliveries/tail/screen.js';
import { HighestAttempts } from '../../../../src/commands/deliveries/shared/fate.js';
import { PLAIN } from '../../../../src/render/colors.js';
import { rebuiltDelivery } from '../../../../src/protocol/delivery.js';

// tail -i's pane shows the headers tail rebuilt from the log (which keeps none of the service's): its heading says so,
// never that they are the service's own; their names in one case, as diagnose shows them.

describe("tail -i's headers", () => {
  const sent = rebuiltDelivery(
    { id: 'dlv_2', event: 'invoice.paid', attempts: 2, created_at: '2025-01-15T12:00:00.000Z', payload: { id: 'inv_1' }, signature: 'sha256=ab' },
    'dlv_1',
    { platformName: 'Service', userAgent: TAIL_USER_AGENT },
  );
  if ('cannot' in sent) throw new Error(sent.cannot);

  it.each([
    [false, 'headers (rebuilt by tail: the log keeps none)'],
    [true, 'headers (rebuilt by tail, as --forward-to sends them: the log keeps none)'],
  ])('forwarding %s: the heading says they are rebuilt by tail', (forwarding, title) => {
    const [heading, ...lines] = rebuiltHeaderLines(sent.headers, forwarding);
    expect(heading).toEqual({ text: title, tone: 'heading' });
    expect(lines.map((line) => line.text)).toEqual([
      '  Content-Type: application/json',
      `  User-Agent: ${TAIL_USER_AGENT}`,
      '  Date: Wed, 15 Jan 2025 12:00:00 GMT',
      '  X-Service-Signature: sha256=ab',
      '  X-Service-Event: invoice.paid',
      '  X-Service-Delivery-Id: dlv_1',
      '  X-Service-Attempt: 2',
      '  X-Service-Attempt-Id: dlv_2',
    ]);
  });
});

describe("tail -i's detail of an attempt", () => {
  it("names the endpoint's code `response`, as deliveries show does (the glossary's word), with why there was none", async () => {
    const record = {
      id: 'dlv_1',
      webhook_id: 'wh_1',
      event: 'invoice.paid',
      status: 'failed',
      response_code: 0,
      failure_reason: 'connection refused',
      attempts: 1,
      created_at: '2025-01-15T12:00:00.000Z',
    };
    const deps = {
      api: { json: async () => ({ ...record, data: [record], has_more: false, next_cursor: null }), baseUrl: 'http://127.0.0.1:4010' },
      serviceNow: () => Date.UTC(2025, 0, 15, 12, 0, 5),
    };
    const source = new TailSource(deps as never, { platformName: 'Service' }, undefined, PLAIN, () => undefined, new HighestAttempts());
    const lines = (await source.details({ change: { kind: 'new', webhookId: 'wh_1', attempt: record as never } })).map((line) => line.text);
    expect(lines, lines.join('\n')).toContainEqual(expect.stringMatching(/^response +no answer: connection refused$/));
    expect(
      lines.some((line) => /^answer /.test(line)),
      lines.join('\n'),
    ).toBe(false);
  });
});
