import { describe, expect, it } from 'vitest';
import { parseRecords, recordedBody, recordedRequest } from '../../src/commands/replay/shared/record.js';

const good = {
  whsvc_record: 1,
  received_at: '2026-11-25T09:00:00Z',
  method: 'POST',
  path: '/h',
  headers: { 'x-a': '1' },
  body: '{}',
  signature: 'ok',
  event: 'invoice.paid',
  delivery_id: 'dlv_1',
  attempt: 1,
  answered: 200,
};
const line = (record: object) => JSON.stringify(record);

describe('record files', () => {
  it('a bad line is named by its number, and the whole file is checked before anything is sent', () => {
    const text = [line(good), line({ ...good, path: undefined })].join('\n');
    expect(() => parseRecords(text, 'f.ndjson')).toThrow('f.ndjson:2: no path');
    expect(() => parseRecords(line({ ...good, headers: { 'x-a': 'a\nb' } }), 'f')).toThrow('f:1: the header "x-a" is not one line of text');
    expect(() => parseRecords(line({ ...good, attempt: 'two' }), 'f')).toThrow('f:1: attempt is not a number');
    expect(parseRecords(`${line(good)}\n\n${line({ ...good, attempt: null })}\n`, 'f')).toHaveLength(2);
  });

  it('keeps any bytes, and a path without its query (a token in a webhook URL stays out of the file)', () => {
    const bytes = Buffer.from([0xff, 0x00, 0x7b]);
    const recorded = recordedRequest('POST', '/hooks?token=s3cret', { 'content-type': 'application/json' }, bytes);
    expect(recorded.path).toBe('/hooks');
    expect(recorded.body).toBeUndefined();
    expect(recordedBody({ ...good, body: undefined, ...recorded } as never).equals(bytes)).toBe(true);
    expect(recordedRequest('POST', '/', {}, Buffer.from('{"a":"é"}')).body).toBe('{"a":"é"}');
  });
});
