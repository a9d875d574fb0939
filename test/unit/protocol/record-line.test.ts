import { describe, expect, it } from 'vitest';
import { carriesClientSecret, parseRecordLine, recordedBody, recordedRequest, withoutCredentials } from '../../../src/protocol/record-line.js';
import { deliveryRecord } from '../../../src/receiver/record-file.js';

/** A delivery recorded, but for its headers. */
const RECORDED = {
  receivedAt: '2025-01-15T12:00:00.000Z',
  path: '/h',
  body: Buffer.from('{}'),
  signatureCheck: 'not_checked' as const,
  event: 'invoice.paid',
  deliveryId: 'dlv_1',
  attempt: 1,
  answered: 200,
};
import { isCredentialHeader, platformNameOf } from '../../../src/protocol/headers.js';
import { recordOf } from '../../helpers/delivery.js';

const good = recordOf({ headers: { 'x-a': '1' } });
const line = (record: object) => JSON.stringify(record);

describe('record files', () => {
  it('a line that is not a record says why', () => {
    expect(parseRecordLine(line({ ...good, path: undefined }))).toEqual({ problem: 'no path (a string starting with /)' });
    expect(parseRecordLine(line({ ...good, attempt: 'two' }))).toEqual({ problem: 'attempt is not a number' });
    expect(parseRecordLine(line({ ...good, event: 7 }))).toEqual({ problem: 'event is not a string' });
    expect(parseRecordLine(line({ ...good, delivery_id: {} }))).toEqual({ problem: 'delivery_id is not a string' });
    expect(parseRecordLine(line({ ...good, body: undefined, body_base64: 'e30=!' }))).toEqual({ problem: 'body_base64 is not base64' });
    expect(parseRecordLine('{"whsvc_record":1')).toEqual({ problem: 'not JSON' });
    expect(parseRecordLine(line({ ...good, attempt: null }))).toMatchObject({ attempt: null });
    expect(parseRecordLine(line({ ...good, body: undefined, body_base64: 'e30=' }))).toMatchObject({ body_base64: 'e30=' });
  });

  it('a header replay could not send is refused, named; one of the hop is taken whatever it holds (it is never sent)', () => {
    const withHeaders = (headers: Record<string, unknown>) => parseRecordLine(line({ ...good, headers }));
    expect(withHeaders({ 'x-a': 'a\nb' })).toEqual({ problem: 'the header "x-a" holds the control character U+000A, which HTTP does not allow in a header' });
    expect(withHeaders({ 'x-a': 'a\u007fb' })).toMatchObject({ problem: expect.stringContaining('U+007F') });
    expect(withHeaders({ 'x-name': '日本' })).toMatchObject({ problem: expect.stringMatching(/^the header "x-name" holds U\+65E5, which is not one byte/) });
    expect(withHeaders({ 'x a': '1' })).toMatchObject({ problem: expect.stringContaining('the header name "x a" is not one HTTP allows') });
    expect(withHeaders({ 'x-a': 1 })).toEqual({ problem: 'the header "x-a" is not a string' });
    // What listen records: each byte one character (latin1), UTF-8's bytes of café among them; tabs and spaces.
    expect(withHeaders({ 'x-name': Buffer.from('café').toString('latin1'), 'x-b': '\tb c' })).not.toHaveProperty('problem');
    expect(withHeaders({ Expect: '100-continue', 'TRANSFER-ENCODING': 'chunked', Connection: 'a b,,', Host: 'h\u0001' })).not.toHaveProperty('problem');
  });

  it('keeps any bytes, and a path without its query (a token in a webhook URL stays out of the file)', () => {
    const bytes = Buffer.from([0xff, 0x00, 0x7b]);
    const recorded = recordedRequest('POST', '/hooks?token=s3cret', { 'content-type': 'application/json' }, bytes);
    expect(recorded.path).toBe('/hooks');
    expect(recorded.body).toBeUndefined();
    expect(recordedBody({ ...good, body: undefined, ...recorded } as never).equals(bytes)).toBe(true);
    expect(recordedRequest('POST', '/', {}, Buffer.from('{"a":"é"}')).body).toBe('{"a":"é"}');
  });

  it('keeps every header but those that carry credentials (the one list --debug redacts too)', () => {
    const credentials = { authorization: 'Bearer tok', 'proxy-authorization': 'Basic cHI6eHk=', cookie: 'sid=1', 'set-cookie': ['a=1', 'b=2'] };
    const recorded = recordedRequest(
      'POST',
      '/h',
      { ...credentials, 'content-type': 'application/json', 'x-service-event': 'invoice.paid' },
      Buffer.from('{}'),
    );
    expect(recorded.headers).toEqual({ 'content-type': 'application/json', 'x-service-event': 'invoice.paid' });
    expect(withoutCredentials({ ...credentials, Authorization: 'Bearer tok', 'x-a': '1' })).toEqual({ 'x-a': '1' });
  });

  it('a credential header is told by its name, as a variable or a flag is: X-Api-Key and its kind; not a challenge, nor a delivery header', () => {
    const credentials = ['X-Api-Key', 'api-key', 'X-APIKEY', 'X-Auth-Token', 'X-Access-Token', 'X-CSRF-Token', 'X-Session-Id', 'Private-Token'];
    const kept = ['WWW-Authenticate', 'Proxy-Authenticate', 'Idempotency-Key', 'Keep-Alive', 'Accept-Patch'];
    expect(credentials.filter((name) => !isCredentialHeader(name))).toEqual([]);
    expect(kept.filter((name) => isCredentialHeader(name))).toEqual([]);
    // A delivery's own headers under the platform name in use, whatever that name holds.
    expect(isCredentialHeader('X-Monkey-Signature', 'Monkey')).toBe(false);
    expect(isCredentialHeader('x-passport-event', 'Passport')).toBe(false);
    expect(isCredentialHeader('X-Token-Delivery-Id', 'Token')).toBe(false);
  });

  it('a credential-named header that merely ends as a delivery header does is a credential: only the platform in use has delivery headers', () => {
    for (const name of ['X-Auth-Token-Event', 'X-Session-Id-Signature', 'X-Api-Key-Delivery-Id', 'X-Monkey-Signature']) {
      expect(isCredentialHeader(name), name).toBe(true);
    }
    expect(isCredentialHeader('X-Auth-Token-Event', 'Monkey')).toBe(true);
    // listen knows a request's platform by its delivery headers: a delivery's event and id, under one name.
    const delivery = { 'x-monkey-signature': 'sha256=ab', 'x-monkey-event': 'invoice.paid', 'x-monkey-delivery-id': 'dlv_1' };
    expect(platformNameOf(delivery)).toBe('monkey');
    const mistaken = { 'x-auth-token-event': 'tok_1', 'x-session-id-signature': 'sess_1', 'x-a': '1' };
    expect(platformNameOf(mistaken)).toBeUndefined();
    expect(withoutCredentials({ ...delivery, ...mistaken })).toEqual({ ...delivery, 'x-a': '1' });
    expect(recordedRequest('POST', '/h', { ...delivery, ...mistaken }, Buffer.from('{}')).headers).toEqual({ ...delivery, 'x-a': '1' });
  });

  it('a platform name the command was given (--platform-name) is the one whose delivery headers are kept, whatever a request names', () => {
    // A sender naming its own platform `Auth-Token` by an event and a delivery id: with none given, it is believed.
    const named = { 'x-auth-token-event': 'invoice.paid', 'x-auth-token-delivery-id': 'dlv_1', 'x-auth-token-signature': 'tok_secret', 'x-a': '1' };
    expect(withoutCredentials(named)).toEqual(named);
    expect(withoutCredentials(named, 'Service')).toEqual({ 'x-a': '1' });
    const record = deliveryRecord({ ...RECORDED, headers: named, platformName: 'Service' });
    expect(record.headers).toEqual({ 'x-a': '1' });
    // The platform given keeps its own, though they are named like a credential.
    const monkey = { 'x-monkey-signature': 'sha256=ab', 'x-monkey-event': 'invoice.paid', 'x-monkey-delivery-id': 'dlv_1' };
    expect(withoutCredentials({ ...monkey, 'x-api-key': 'k' }, 'Monkey')).toEqual(monkey);
    expect(deliveryRecord({ ...RECORDED, headers: monkey, platformName: 'Monkey' }).headers).toEqual(monkey);
  });

  it('a body that starts with a byte order mark comes back with it, through the file', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"inv_1"}')]);
    const written = JSON.stringify({ ...good, ...recordedRequest('POST', '/h', {}, bytes) });
    const read = parseRecordLine(written);
    expect('problem' in read).toBe(false);
    expect(recordedBody(read as never).equals(bytes)).toBe(true);
  });
});

describe('a token request is never recorded, however it is written', () => {
  it.each([
    ['JSON', '{"grant_type":"client_credentials","client_id":"a","client_secret":"s"}'],
    ['JSON after a byte-order mark', '\uFEFF{"client_id":"a","client_secret":"s"}'],
    ['JSON with the name escaped', '{"client\\u005fsecret":"s"}'],
    ['a form', 'grant_type=client_credentials&client_secret=s'],
    ['a form, its name percent-encoded', 'grant_type=client_credentials&client%5Fsecret=s'],
    ['a multipart form', '--b\r\nContent-Disposition: form-data; name="client_secret"\r\n\r\ns\r\n--b--\r\n'],
  ])('%s', (_kind, body) => {
    expect(carriesClientSecret(Buffer.from(body))).toBe(true);
  });

  it.each([
    ['a payload that mentions it', '{"event":"invoice.paid","data":{"note":"rotate the client_secret monthly"}}'],
    ['a field of the data named so', '{"event":"invoice.paid","data":{"client_secret":"not a top-level field"}}'],
  ])('but %s is a delivery like any other', (_kind, body) => {
    expect(carriesClientSecret(Buffer.from(body))).toBe(false);
  });
});
