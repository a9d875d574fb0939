import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TransportRequest, TransportResponse } from '../../../../src/api/transport.js';
import { RAW_BODY_FIX } from '../../../../src/commands/check-receiver/causes.js';
import { run } from '../../../../src/commands/check-receiver/check-receiver.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';
import { displayWidth } from '../../../../src/render/width.js';
import { wrapLine } from '../../../../src/render/wrap.js';
import { TransportError } from '../../../../src/net.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';

// Review of issue 43 (review-43): behaviours of check-receiver that the tests of main do not hold. Each fails on main.

const SECRET = 'whsec_review_unit';

describe('check-receiver, review of issue 43', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'whsvc-review-'));
    writeFileSync(join(dir, 'whsec.txt'), SECRET);
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  type Reply = { status: number; headers?: Record<string, string>; text: string } | TransportError;
  /** check-receiver --json against a receiver that answers every request with `answer` (or fails as it says). */
  const check = (answer: () => Reply) => checkWith(() => answer());
  async function checkWith(answer: (request: TransportRequest) => Reply) {
    const transport = async (request: TransportRequest): Promise<TransportResponse> => {
      const a = answer(request);
      if (a instanceof TransportError) throw a;
      return { status: a.status, headers: a.headers ?? {}, text: a.text };
    };
    const stdout = new Collector();
    let clock = Date.UTC(2026, 10, 25, 9);
    const code = await run(
      {
        url: 'http://127.0.0.1:3000/hooks',
        secretFiles: [join(dir, 'whsec.txt')],
        events: ['invoice.paid'],
        platformName: 'Service',
        limitMs: 250,
        limitGiven: true,
        json: true,
        color: false,
      },
      { stdin: fakeStdin(), stdout, stderr: new Collector(), env: {}, jsonOut: new PrintedJson(stdout), transport, now: () => (clock += 4) },
    );
    return { code, document: JSON.parse(stdout.text) };
  }

  it('an auth proxy that answers 401 to every request, signed or not, is not named "another secret" as tested', async () => {
    // Basic auth in front of a staging receiver (nginx, Cloudflare Access, a deployment protection): the same answer
    // to valid, forged and unsigned deliveries alike, with WWW-Authenticate. Nothing sent tested the secret.
    const { document } = await check(() => ({ status: 401, headers: { 'www-authenticate': 'Basic realm="staging"' }, text: 'Unauthorized' }));
    expect(document.cause_found?.cause).not.toBe('another_secret');
  });

  it('a receiver that verifies the signature and refuses the payload (422, where a forged one gets 401) is not named "another secret"', async () => {
    // An app that checks its payload after the signature: every sample lacks a field it wants. The suspects, signed
    // wrong, get 401; the valid deliveries 422: the signature verified, and the secret is not the cause.
    const { document } = await checkWith((sent) => {
      const body = Buffer.from(sent.body as Uint8Array);
      const want = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
      const given = Object.entries(sent.headers).find(([name]) => name.toLowerCase() === 'x-service-signature')?.[1];
      return given === want ? { status: 422, text: 'missing field: customer' } : { status: 401, text: 'bad signature' };
    });
    expect(document.checks[2].result).toBe('pass');
    expect(document.cause_found?.cause).not.toBe('another_secret');
  });

  it('checks the battery never ran are not counted as failed', async () => {
    const { document } = await check(() => new TransportError('no answer within 250 ms', 'ETIMEDOUT', true));
    // Checks 3 to 8 sent nothing: they did not fail, they were not run. (Check 2 did: with one event type, check 1 sends
    // one delivery, and check 2's is the second time-out, a failure as check 1's is.)
    expect(document.checks.slice(2, 8).map((c: { result: string }) => c.result)).not.toContain('fail');
  });
});

describe("check-receiver's report at 60 columns, the narrowest the issue names", () => {
  it('the raw-body fix, under its label, fits: no word wider than the room (the terminal would cut it)', () => {
    const hang = ' '.repeat(11);
    const laid = wrapLine(`         fix: ${RAW_BODY_FIX}`, 60, hang);
    for (const line of laid.split('\n')) expect(displayWidth(line), laid).toBeLessThanOrEqual(60);
  });
});
