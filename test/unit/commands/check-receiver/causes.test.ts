import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { pythonDumps, suspectsOfRefusal, suspectsOfReserialization } from '../../../../src/commands/check-receiver/causes.js';

const SECRET = 'whsec_q0tzH3rUSjB7-fo_2nlV4cW8mJ1pa6Ye';

/** What Python's json.dumps writes of `value` (given as JSON) with each set of keyword arguments, from python3 itself. */
function python(value: unknown, variants: readonly string[]): string[] {
  const script = `import json, sys\nvalue = json.loads(sys.stdin.read())\nprint(json.dumps([${variants.map((kw) => `json.dumps(value${kw ? `, ${kw}` : ''})`).join(', ')}]))`;
  const result = spawnSync('python3', ['-c', script], { input: JSON.stringify(value), encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

describe("Python's json.dumps, as check-receiver predicts it", () => {
  it('writes what python3 writes, byte for byte: separators, indent, sorted keys, escapes of non-ASCII and control characters', () => {
    const value = {
      id: 'inv_1',
      zeta: [1, -2, { b: null, a: true }, [], {}],
      amount: { amount: 12900, currency: 'EUR' },
      note: 'café "quoted" \\ back\tslash\n😀\u007f\u0001/',
      empty: '',
    };
    const [defaults, sorted, indent2, indent4, compact] = python(value, ['', 'sort_keys=True', 'indent=2', 'indent=4', "separators=(',', ':')"]);
    expect(pythonDumps(value)).toBe(defaults);
    expect(pythonDumps(value, { sortKeys: true })).toBe(sorted);
    expect(pythonDumps(value, { indent: 2 })).toBe(indent2);
    expect(pythonDumps(value, { indent: 4 })).toBe(indent4);
    expect(pythonDumps(value, { separators: [',', ':'] })).toBe(compact);
  });
});

/** The key python3's base64 module makes of `encoded` with `decode` (b64decode padded with ==, as a receiver pads it). */
function pythonKey(encoded: string, decode: 'b64decode' | 'urlsafe_b64decode'): Buffer {
  const script = `import base64, sys\ns = sys.stdin.read()\nprint(base64.${decode}(s + '==').hex())`;
  const result = spawnSync('python3', ['-c', script], { input: encoded, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`python3: ${result.stderr}`);
  return Buffer.from(result.stdout.trim(), 'hex');
}

describe('the suspects of a refusal: each a delivery that the receiver with that mistake takes', () => {
  const body = '{"id":"inv_1","event":"invoice.paid","amount":{"amount":12900,"currency":"EUR"}}';
  const hmac = (key: string | Buffer, bytes: string) => createHmac('sha256', key).update(bytes).digest();
  const of = { secret: SECRET, keyName: 'whsec.txt', event: 'invoice.paid', body, header: 'X-Service-Signature' };
  const byKey = Object.fromEntries(suspectsOfRefusal(of).map((s) => [s.key, s]));

  it('sends the bytes the service sends, each signed as its mistake computes the signature', () => {
    const signed = (bytes: string, key: string | Buffer = SECRET) => `sha256=${hmac(key, bytes).toString('hex')}`;
    const value = JSON.parse(body);
    for (const suspect of Object.values(byKey)) expect(suspect.body).toBe(body);
    expect(Object.keys(byKey)).toEqual([
      'python_json_dumps',
      'key_with_newline',
      'key_base64_decoded',
      'key_base64_standard',
      'prefix_absent',
      'pretty_indent_2',
      'python_sort_keys',
      'pretty_indent_4',
      'sorted_compact',
      'base64_digest',
      'prefix_doubled',
    ]);
    expect(byKey.python_json_dumps!.signature).toBe(signed(python(value, [''])[0]!));
    expect(byKey.python_sort_keys!.signature).toBe(signed(python(value, ['sort_keys=True'])[0]!));
    expect(byKey.pretty_indent_2!.signature).toBe(signed(JSON.stringify(value, null, 2)));
    expect(byKey.pretty_indent_4!.signature).toBe(signed(python(value, ['indent=4'])[0]!));
    expect(byKey.sorted_compact!.signature).toBe(signed('{"amount":{"amount":12900,"currency":"EUR"},"event":"invoice.paid","id":"inv_1"}'));
    expect(byKey.key_with_newline!.signature).toBe(signed(body, `${SECRET}\n`));
    expect(byKey.key_base64_decoded!.signature).toBe(signed(body, Buffer.from(SECRET.slice('whsec_'.length), 'base64url')));
    expect(byKey.key_base64_standard!.signature).toBe(signed(body, pythonKey(SECRET.slice('whsec_'.length), 'b64decode')));
    expect(byKey.prefix_absent!.signature).toBe(hmac(SECRET, body).toString('hex'));
    expect(byKey.prefix_doubled!.signature).toBe(`sha256=${signed(body)}`);
    expect(byKey.base64_digest!.signature).toBe(`sha256=${hmac(SECRET, body).toString('base64')}`);
  });

  it("decodes the secret as the usual libraries do, each said: urlsafe, and Python's b64decode (- and _ dropped) when they differ", () => {
    const keysOf = (secret: string) => suspectsOfRefusal({ ...of, secret }).filter((suspect) => suspect.key.startsWith('key_base64'));
    // The key python3 makes of each: the urlsafe one, and b64decode's, padded as a receiver pads it.
    const encoded = SECRET.slice('whsec_'.length);
    expect(byKey.key_base64_decoded!.signature).toBe(`sha256=${hmac(pythonKey(encoded, 'urlsafe_b64decode'), body).toString('hex')}`);
    expect(byKey.key_base64_decoded!.cause).toContain("urlsafe: Buffer.from(s, 'base64'), urlsafe_b64decode");
    expect(byKey.key_base64_standard!.cause).toContain("standard, its - and _ dropped: Python's b64decode");
    expect(byKey.key_base64_standard!.short).toBe('it keys the HMAC with the secret decoded as standard base64, - and _ dropped');
    // No - or _: both read it alike, one key. Four left after dropping them and one more: no base64, no key of b64decode's.
    const plain = keysOf('whsec_q0tzH3rUSjB7xfoy2nlV4cW8mJ1pa6Ye');
    expect(plain.map((suspect) => [suspect.key, suspect.what])).toEqual([
      ['key_base64_decoded', 'invoice.paid signed with the secret in whsec.txt after whsec_, decoded as base64'],
    ]);
    expect(keysOf('whsec_q0tzH3rUSjB7-fo_2nlV4cW8mJ1pa6Y').map((suspect) => suspect.key)).toEqual(['key_base64_decoded']);
  });

  it('tries no decoded key for a secret that is no whsec_ string; names the file, never the secret', () => {
    const plain = suspectsOfRefusal({ ...of, secret: 'a plain secret' });
    expect(plain.map((s) => s.key)).not.toContain('key_base64_decoded');
    expect(JSON.stringify(suspectsOfRefusal(of))).not.toContain(SECRET);
    expect(byKey.key_with_newline!.cause).toContain('the secret in whsec.txt');
  });

  it('after a compact delivery taken and the same JSON written otherwise refused: JSON.stringify of the bytes sent', () => {
    const otherwise = '{ "\\u0069d" : "inv_1" , "amount" : { "amount" : 12900 } }';
    const [compact] = suspectsOfReserialization({ ...of, body: otherwise });
    expect(compact).toMatchObject({ key: 'compact', body: otherwise });
    expect(compact!.signature).toBe(`sha256=${hmac(SECRET, '{"id":"inv_1","amount":{"amount":12900}}').toString('hex')}`);
  });
});
