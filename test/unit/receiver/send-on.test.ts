import { Agent } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { undiciTransport } from '../../../src/api/transport.js';
import { sendAsReceived } from '../../../src/receiver/send-on.js';
import { ANSWER_HEAD_BYTES } from '../../../src/protocol/delivery.js';
import { startEndlessServer, type EndlessServer } from '../../helpers/endless.js';

// The one reader of a receiver's answer (send, check-receiver, replay, the forwards of listen and tail), over a real
// connection to a receiver that answers without end: its head is read, its status stands, the rest is never read.

const TOTAL = 64 * 1024 * 1024;

describe('sendAsReceived: what is read of a receiver’s answer', () => {
  let receiver: EndlessServer | undefined;
  let agent: Agent | undefined;
  afterEach(async () => {
    await agent?.destroy();
    await receiver?.close();
    receiver = agent = undefined;
  });

  async function sendTo(status: number, total = TOTAL) {
    receiver = await startEndlessServer({ status, total, contentType: 'text/plain' });
    agent = new Agent();
    return sendAsReceived(undiciTransport(agent), new URL(`${receiver.url}/hooks`), { 'content-type': 'application/json' }, Buffer.from('{}'), '/');
  }

  it('an answer that goes on is read up to its head: the status stands, the cut is said, the connection is closed', async () => {
    const result = await sendTo(200);
    expect(result).toMatchObject({ status: 200, cut: true });
    expect(result.body).toBe('a'.repeat(ANSWER_HEAD_BYTES));
    expect(receiver!.written()).toBeLessThan(TOTAL);
    await receiver!.untilCutOff(1);
  });

  it('the same for a refusal: its status is what counts', async () => {
    const result = await sendTo(401);
    expect(result).toMatchObject({ status: 401, cut: true });
    expect(result.body).toHaveLength(ANSWER_HEAD_BYTES);
  });

  it('an answer within the head is read whole, and not said cut', async () => {
    const result = await sendTo(202, ANSWER_HEAD_BYTES);
    expect(result).toMatchObject({ status: 202, cut: false, body: 'a'.repeat(ANSWER_HEAD_BYTES) });
    expect(receiver!.cutOff()).toBe(0);
  });
});

describe('sendAsReceived: the headers kept of an answer', () => {
  it('keeps WWW-Authenticate and Location, each its first 200 characters, to name a login or a redirect', async () => {
    const realm = `Basic realm="${'s'.repeat(300)}"`;
    const result = await sendAsReceived(
      async () => ({ status: 401, headers: { 'www-authenticate': realm, location: '/login?next=/hooks', 'set-cookie': 'a=b' }, text: 'Unauthorized' }),
      new URL('http://127.0.0.1:3000/hooks'),
      {},
      Buffer.from('{}'),
      '/',
    );
    expect(result).toEqual({ status: 401, body: 'Unauthorized', cut: false, authenticate: realm.slice(0, 200), location: '/login?next=/hooks' });
  });

  it('has neither when the answer has none', async () => {
    const result = await sendAsReceived(async () => ({ status: 200, headers: {}, text: 'ok' }), new URL('http://127.0.0.1:3000/'), {}, Buffer.from('{}'), '/');
    expect(result).toEqual({ status: 200, body: 'ok', cut: false });
  });
});
