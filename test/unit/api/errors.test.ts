import { describe, expect, it } from 'vitest';
import { describeErrorBody } from '../../../src/api/errors.js';
import { redactHeaders, redactText, SecretMask } from '../../../src/api/redact.js';

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

function oneLine(result: { message?: string }): string {
  expect(result.message).toBeDefined();
  expect(result.message).not.toMatch(CONTROL);
  return result.message!;
}

describe('describeErrorBody', () => {
  it('JSON with message', () => {
    const result = describeErrorBody('{"message":"url must be https"}', 'application/json');
    expect(oneLine(result)).toBe('url must be https');
  });

  it('JSON with an error string and error_description (RFC 6749)', () => {
    const result = describeErrorBody('{"error":"invalid_client","error_description":"client authentication failed"}', 'application/json');
    expect(result.code).toBe('invalid_client');
    expect(oneLine(result)).toBe('client authentication failed');
  });

  it('JSON with only an error string', () => {
    const result = describeErrorBody('{"error":"Something went wrong"}', 'application/json; charset=utf-8');
    expect(oneLine(result)).toBe('Something went wrong');
  });

  it('JSON with an error object {code, message}', () => {
    const result = describeErrorBody('{"error":{"code":"not_found","message":"no webhook wh_1"}}', 'application/json');
    expect(result).toEqual({ code: 'not_found', message: 'no webhook wh_1' });
  });

  it('JSON with error.required_scope', () => {
    const result = describeErrorBody('{"error":{"code":"forbidden","message":"missing scope","required_scope":"webhooks:write"}}');
    expect(result.requiredScope).toBe('webhooks:write');
  });

  it('JSON with only error_description', () => {
    expect(oneLine(describeErrorBody('{"error_description":"scope not granted"}', 'application/json'))).toBe('scope not granted');
  });

  it('problem+json: detail before title', () => {
    const body = JSON.stringify({ type: 'about:blank', title: 'Not Found', status: 404, detail: 'webhook wh_9 does not exist' });
    expect(oneLine(describeErrorBody(body, 'application/problem+json'))).toBe('webhook wh_9 does not exist');
  });

  it('problem+json with only a title', () => {
    expect(oneLine(describeErrorBody('{"title":"Too Many Requests","status":429}', 'application/problem+json'))).toBe('Too Many Requests');
  });

  it('JSON recognised without a content type', () => {
    expect(oneLine(describeErrorBody('  {"message":"bad cursor"}\n', ''))).toBe('bad cursor');
  });

  it('plain text: the first line, trimmed', () => {
    expect(oneLine(describeErrorBody('  upstream connect error\nreset reason: overflow\n', 'text/plain'))).toBe('upstream connect error');
  });

  it('text that merely looks like JSON falls back to text', () => {
    expect(oneLine(describeErrorBody('{not json at all', 'text/plain'))).toBe('{not json at all');
  });

  it('HTML: the title', () => {
    const html =
      '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>';
    expect(oneLine(describeErrorBody(html, 'text/html'))).toBe('502 Bad Gateway');
  });

  it('HTML without a title: the first text, not scripts or styles', () => {
    const html =
      '<html><head><style>h1{color:red}</style><script>var x = 1;</script></head><body>\n  <h1>Service Unavailable</h1>\n<p>try later</p></body></html>';
    expect(oneLine(describeErrorBody(html))).toBe('Service Unavailable');
  });

  it('HTML recognised by its content type alone', () => {
    expect(oneLine(describeErrorBody('<h1>Forbidden</h1><p>go away</p>', 'text/html; charset=utf-8'))).toBe('Forbidden');
  });

  it('HTML whose title spans lines is still one line', () => {
    const html = '<html><head><title>\n    Error 503\n    Service Unavailable\n  </title></head><body></body></html>';
    const message = oneLine(describeErrorBody(html, 'text/html'));
    expect(message).toMatch(/^Error 503\s+Service Unavailable$/);
  });

  it('a JSON message over several lines is one line', () => {
    const message = oneLine(describeErrorBody('{"message":"validation failed:\\n url: must be https\\n events: empty"}', 'application/json'));
    expect(message).toContain('validation failed:');
    expect(message).toContain('events: empty');
  });

  it('no control characters from the server reach the message (they would drive the terminal)', () => {
    const message = oneLine(describeErrorBody('{"error":{"code":"x","message":"\\u001b]0;pwned\\u0007bad \\u001b[31mthing"}}', 'application/json'));
    expect(message).toContain('bad');
    expect(message).toContain('thing');
  });

  it('an empty body gives nothing (the caller says HTTP <status>)', () => {
    expect(describeErrorBody('', 'application/json')).toEqual({});
    expect(describeErrorBody('   \n', 'text/plain')).toEqual({});
  });

  it('a long text body is cut', () => {
    const message = oneLine(describeErrorBody('x'.repeat(5000), 'text/plain'));
    expect(message.length).toBeLessThanOrEqual(200);
  });
});

describe('redactText', () => {
  it('replaces client_secret, access_token, refresh_token and signing_secret values in JSON, compact or pretty', () => {
    const compact = '{"client_id":"abc","client_secret":"s3cr3t","access_token":"tok123","refresh_token":"r1","signing_secret":"whsec_1"}';
    const out = redactText(compact);
    for (const secret of ['s3cr3t', 'tok123', 'r1"', 'whsec_1']) expect(out).not.toContain(secret);
    expect(out).toContain('"client_id":"abc"');
    const pretty = JSON.stringify({ id: 'wh_1', signing_secret: 'whsec_pretty' }, null, 2);
    expect(redactText(pretty)).not.toContain('whsec_pretty');
    expect(redactText(pretty)).toContain('"id": "wh_1"');
  });

  it('keeps the JSON valid and handles escaped quotes in a secret', () => {
    const text = JSON.stringify({ client_secret: 'a"b\\"c', other: 1 });
    const out = redactText(text);
    expect(out).not.toContain('a\\"b');
    expect(JSON.parse(out)).toEqual({ client_secret: '[redacted]', other: 1 });
  });

  it('replaces form-encoded secrets and keeps the other fields', () => {
    const out = redactText('grant_type=client_credentials&client_id=abc&client_secret=s%2F3cr3t&scope=webhooks%3Aread');
    expect(out).toBe('grant_type=client_credentials&client_id=abc&client_secret=[redacted]&scope=webhooks%3Aread');
  });

  it('leaves text with no secret as it is', () => {
    const text = '{"data":[{"id":"wh_1","url":"https://e.example"}],"has_more":false}';
    expect(redactText(text)).toBe(text);
  });
});

describe('redactHeaders', () => {
  it('hides authorization, proxy-authorization and cookies whatever their case, shows the rest, drops undefined', () => {
    const out = redactHeaders({
      Authorization: 'Bearer tok_abc',
      'Proxy-Authorization': 'Basic cHJveHk6cHc=',
      cookie: 'sid=1',
      'set-cookie': ['a=1', 'b=2'],
      'content-type': 'application/json',
      'x-missing': undefined,
    });
    expect(out).not.toContain('tok_abc');
    expect(out).not.toContain('sid=1');
    expect(out).not.toContain('a=1');
    expect(out).not.toContain('cHJveHk6cHc=');
    expect(out).toContain('Authorization: [redacted]');
    expect(out).toContain('content-type: application/json');
    expect(out).not.toContain('x-missing');
    expect(out.split('\n')).toHaveLength(5);
  });

  it("a delivery header of the platform name given is shown, though named like a credential (Monkey's key); another platform's is not", () => {
    const headers = { 'X-Monkey-Signature': 'sha256=ab', 'X-Api-Key': 'k_1' };
    expect(redactHeaders(headers, 'Monkey')).toBe('X-Monkey-Signature: sha256=ab\nX-Api-Key: [redacted]');
    expect(redactHeaders(headers)).toBe('X-Monkey-Signature: [redacted]\nX-Api-Key: [redacted]');
  });
});

describe('SecretMask', () => {
  it('masks each secret as it is, URL-encoded, JSON-escaped once or twice, with / escaped or not', () => {
    const mask = new SecretMask();
    const secret = 'a/b"c d';
    mask.add(secret);
    const once = JSON.stringify(secret).slice(1, -1);
    for (const form of [secret, encodeURIComponent(secret), once, once.replace('/', '\\/'), JSON.stringify(once).slice(1, -1)]) {
      expect(mask.mask(`<${form}>`), form).toBe('<[redacted]>');
    }
    expect(mask.mask('nothing here')).toBe('nothing here');
  });

  it('masks it too in lower-case percent-encoding, form encoding and base64, as servers and gateways echo it', () => {
    const mask = new SecretMask();
    const secret = 'cs_live/Sup3r S3cret+value';
    mask.add(secret);
    const bytes = Buffer.from(secret);
    for (const form of [
      encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase()),
      encodeURIComponent(secret).replaceAll('%20', '+'),
      bytes.toString('base64'),
      bytes.toString('base64url'),
    ]) {
      expect(mask.mask(`echo: ${form}.`), form).not.toContain(form.replace(/=+$/, ''));
    }
  });

  it(`masks a beginning of it cut by an ellipsis (as jq and servers cut long values), from ${SecretMask.MIN_CUT} characters`, () => {
    const mask = new SecretMask();
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
    mask.add(secret);
    expect(mask.mask(`string ("${secret.slice(0, 24)}...") cannot be parsed`)).toBe('string ("[redacted]") cannot be parsed');
    expect(mask.mask(`got ${secret.slice(0, 10)}… and ${JSON.stringify(secret).slice(0, 12)}...`)).toBe('got [redacted] and "[redacted]');
    // What tells nothing stays: every signing secret begins whsec_, and an ellipsis after other words is theirs.
    expect(mask.mask('the key is the whsec_… string; see... the docs')).toBe('the key is the whsec_… string; see... the docs');
    expect(mask.holds(`x ${secret} y`)).toBe(true);
    expect(mask.holds('whsec_other')).toBe(false);
  });

  it(`leaves a secret shorter than ${SecretMask.MIN_MASKED} characters, which would hide the letters of every word`, () => {
    const mask = new SecretMask();
    mask.add('y');
    mask.add(undefined);
    mask.add('');
    expect(mask.mask('yes, the key')).toBe('yes, the key');
  });

  it(`a signing secret's key (after whsec_) is a form from ${SecretMask.MIN_KEY} characters: a short one is a word other text holds (a year, a number)`, () => {
    // A service's short secret: its whole form stays a form, its key does not.
    expect(SecretMask.holdsWhole('wh_1… invoice.paid', 'whsec_1')).toBe(false);
    expect(SecretMask.holdsWhole('"whsec_1"', 'whsec_1')).toBe(true);
    const mask = new SecretMask();
    mask.add('whsec_2026');
    expect(mask.mask('created 2026-11-28, secret whsec_2026')).toBe('created 2026-11-28, secret [redacted]');
    // A key as long as a real one's is masked alone, and had back whole from.
    const key = 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    mask.add(`whsec_${key}`);
    expect(mask.mask(`key ${key}`)).toBe('key [redacted]');
    expect(SecretMask.holdsWhole(`key ${key}`, `whsec_${key}`)).toBe(true);
  });
});
