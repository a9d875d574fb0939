import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from '../../../../src/api/client.js';
import type { Transport, TransportResponse } from '../../../../src/api/transport.js';
import { LIST_BOUNDS, run as list } from '../../../../src/commands/deliveries/list.js';
import { CLIENT_ID, CLIENT_SECRET, ORIGIN, T0, fakeDeps, finishFakeDeps } from '../../../helpers/fake-deps.js';

afterEach(finishFakeDeps);

// `deliveries list --payload-id`: each delivery's payload is retrieved, several at once. The bytes those answers
// hold while under way are bounded (LIST_BOUNDS.lookupBytes), whatever the size of the payloads: counted here in a
// service of our own whose retrieves are answers of a size it says (no large body is built), each one held until
// the next turn of the event loop, so that every retrieve the search sends at once is under way together.

const MiB = 1024 ** 2;
const DELIVERIES = 12;

/** What the service saw of the retrieves: the bytes (bodyLimit) each asked to read, and the most under way at once. */
interface Retrieves {
  limits: number[];
  peakBytes: number;
  peakCount: number;
}

/**
 * One webhook whose log holds DELIVERIES deliveries, each retrieve an answer of `size` bytes (one longer than the
 * bytes the client reads is cut, as the client's transport cuts it); dlv_3's payload is inv_42.
 */
function service(size: number): { transport: Transport; retrieves: Retrieves } {
  const retrieves: Retrieves = { limits: [], peakBytes: 0, peakCount: 0 };
  let bytes = 0;
  let count = 0;
  const ok = (body: unknown): TransportResponse => ({ status: 200, headers: { 'content-type': 'application/json' }, text: JSON.stringify(body) });
  const attempt = (n: number) => ({
    id: `dlv_${n}`,
    event: 'invoice.paid',
    status: 'failed',
    response_code: 500,
    attempts: 1,
    created_at: new Date(T0 - n * 60_000).toISOString(),
  });
  const transport: Transport = async (req) => {
    const path = req.url.pathname;
    if (path === '/v1/oauth/token') return ok({ access_token: 'tok_payloads', token_type: 'Bearer', expires_in: 3600 });
    if (path === '/v1/webhooks')
      return ok({ data: [{ id: 'wh_1', url: 'https://e.example/h', events: ['invoice.paid'], active: true }], has_more: false, next_cursor: null });
    if (path === '/v1/webhooks/wh_1/deliveries') {
      return ok({ data: Array.from({ length: DELIVERIES }, (_, i) => attempt(i + 1)), has_more: false, next_cursor: null });
    }
    const n = Number(path.split('_').pop());
    retrieves.limits.push(req.bodyLimit);
    bytes += req.bodyLimit;
    count += 1;
    retrieves.peakBytes = Math.max(retrieves.peakBytes, bytes);
    retrieves.peakCount = Math.max(retrieves.peakCount, count);
    await new Promise((resolve) => setImmediate(resolve));
    bytes -= req.bodyLimit;
    count -= 1;
    if (size > req.bodyLimit) return { status: 200, headers: {}, text: '{"id":"dlv_', cut: true };
    return ok({ ...attempt(n), payload: { id: n === 3 ? 'inv_42' : 'inv_other' } });
  };
  return { transport, retrieves };
}

/** `deliveries list --payload-id inv_42 --all --json` against `service(size)`, with --max-answer-size `most`. */
async function search(size: number, most?: number) {
  const fake = fakeDeps({ json: true });
  const { transport, retrieves } = service(size);
  const api = new ApiClient({
    baseUrl: ORIGIN,
    credentials: { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET },
    transport,
    timeoutMs: 5_000,
    maxAnswerBytes: most,
  });
  const code = await list({ all: true, across: { webhooks: [], events: [], payloadId: 'inv_42' } }, { ...fake.deps, api, serviceNow: () => T0 });
  const found = (JSON.parse(fake.stdout.text) as { data: Array<{ id: string }> }).data.map((row) => row.id);
  return { code, found, retrieves, stderr: fake.stderr.text };
}

describe('deliveries list --payload-id: the answers of the retrieves under way hold at most LIST_BOUNDS.lookupBytes', () => {
  it('small payloads: eight retrieves at once, each read to its share of the bound (16 MiB)', async () => {
    const { code, found, retrieves } = await search(4 * 1024);
    expect(code).toBe(0);
    expect(found).toEqual(['dlv_3']);
    expect(retrieves.peakCount).toBe(8);
    expect(retrieves.limits).toEqual(Array(DELIVERIES).fill(16 * MiB));
  });

  it('payloads of 40 MiB: read again to --max-answer-size (64 MiB), two at a time, never more than 128 MiB under way', async () => {
    const { code, found, retrieves } = await search(40 * MiB);
    expect(code).toBe(0);
    expect(found).toEqual(['dlv_3']);
    expect(retrieves.peakBytes).toBeLessThanOrEqual(LIST_BOUNDS.lookupBytes);
    expect(retrieves.limits.filter((limit) => limit === 64 * MiB)).toHaveLength(DELIVERIES);
  });

  it('a --max-answer-size above the bound (256 MiB): a long payload is read alone', async () => {
    const { code, found, retrieves } = await search(200 * MiB, 256 * MiB);
    expect(code).toBe(0);
    expect(found).toEqual(['dlv_3']);
    expect(retrieves.peakBytes).toBe(256 * MiB);
    expect(retrieves.limits.filter((limit) => limit === 256 * MiB)).toHaveLength(DELIVERIES);
  });

  it('a payload longer than --max-answer-size is the one error it always was', async () => {
    const result = await search(80 * MiB).catch((error: Error) => error);
    expect(result).toMatchObject({ code: 'answer_too_large', message: expect.stringContaining('longer than 64 MiB') });
  });
});
