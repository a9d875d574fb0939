import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseRecordLine, type RecordLine } from '../../../../src/protocol/record-line.js';
import { postDelivery } from '../../../helpers/delivery.js';
import { listenInProcess } from '../../../helpers/listen.js';

// listen --record against senders on 127.0.0.1: what it keeps of what comes.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-listen-record-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = 'whsec_listen_record_test';

function recorded(file: string): RecordLine[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => parseRecordLine(line) as RecordLine);
}

describe('listen --record and a client_secret', () => {
  it('a verified delivery whose body has a top-level client_secret is recorded and printed as any other', async () => {
    const record = join(dir, 'records.ndjson');
    const listen = await listenInProcess({ secret: SECRET, record });
    // An event about an OAuth client of the business platform: its payload may well name a client_secret.
    const body = JSON.stringify({ event: 'oauth_client.created', client_id: 'cli_1', client_secret: 'cs_of_the_event' });
    const answer = await postDelivery(listen.url, SECRET, 'dlv_secretful', { body, headers: { 'x-service-event': 'oauth_client.created' } });
    expect(answer.status).toBe(200);
    expect(await listen.stop()).toBe(130);
    expect(recorded(record)).toMatchObject([{ delivery_id: 'dlv_secretful', signature_check: 'verified', body }]);
    expect(listen.receipts()).toMatchObject([{ delivery_id: 'dlv_secretful', body }]);
    expect(listen.stderr.text).not.toContain('client_secret');
  });

  it('a token request sent to listen by mistake (no verified signature) is answered, its body neither recorded nor printed, and said once', async () => {
    const record = join(dir, 'records.ndjson');
    const listen = await listenInProcess({ secret: SECRET, record });
    const tokenRequest = JSON.stringify({ grant_type: 'client_credentials', client_id: 'cli_1', client_secret: 'cs_the_users_own' });
    for (const _ of [1, 2]) {
      const answer = await fetch(listen.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: tokenRequest });
      expect(answer.status).toBe(400);
    }
    // A verified delivery after them: the marker that everything before it was handled.
    expect((await postDelivery(listen.url, SECRET, 'dlv_after')).status).toBe(200);
    expect(await listen.stop()).toBe(130);
    expect(recorded(record).map((r) => r.delivery_id)).toEqual(['dlv_after']);
    expect(listen.receipts().map((r) => r.body)).toEqual([null, null, expect.stringContaining('inv_1')]);
    const said = listen.stderr.text.split('\n').filter((line) => line.includes('client_secret'));
    expect(said).toEqual([
      'whsvc listen: a request with a client_secret in its body and no verified signature (an API command pointed here by mistake?): answered, its body neither recorded nor printed',
    ]);
    expect(listen.stdout.text + listen.stderr.text + readFileSync(record, 'utf8')).not.toContain('cs_the_users_own');
  });

  it('a verified delivery --events leaves out is recorded with its signature check', async () => {
    const record = join(dir, 'records.ndjson');
    const listen = await listenInProcess({ secret: SECRET, record, events: ['invoice.paid'] });
    const body = JSON.stringify({ event: 'oauth_client.created', client_secret: 'cs_of_the_event' });
    expect((await postDelivery(listen.url, SECRET, 'dlv_other', { body, headers: { 'x-service-event': 'oauth_client.created' } })).status).toBe(200);
    expect(await listen.stop()).toBe(130);
    expect(recorded(record)).toMatchObject([{ delivery_id: 'dlv_other', signature_check: 'verified', body }]);
  });
});

describe("listen --record onto a file of the user's", () => {
  it('is refused before it listens (exit 2), the file kept byte for byte', async () => {
    const mine = join(dir, 'mine.json');
    writeFileSync(mine, '{"keep":"me"}');
    await expect(listenInProcess({ secret: SECRET, record: mine })).rejects.toMatchObject({
      refused: true,
      message: `--record ${mine} is not a record file (its lines are not records whsvc wrote): left as it was`,
    });
    expect(readFileSync(mine, 'utf8')).toBe('{"keep":"me"}');
  });
});
