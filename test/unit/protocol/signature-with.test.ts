import { describe, expect, it } from 'vitest';
import { checkSignatureWith } from '../../../src/protocol/signature.js';
import { signatureOf } from '../../helpers/delivery.js';

// One signature checked against several secrets: a receiver moving to a new secret accepts both.
describe('checkSignatureWith', () => {
  const body = '{"id":"inv_1","event":"invoice.paid"}';
  const keys = [
    { name: 'old.txt', secret: 'whsec_old' },
    { name: 'new.txt', secret: 'whsec_new' },
  ];

  it('verified by whichever secret made it, which it returns', () => {
    expect(checkSignatureWith(keys, body, signatureOf('whsec_new', body))).toEqual({ check: 'verified', by: keys[1] });
    expect(checkSignatureWith(keys, Buffer.from(body), signatureOf('whsec_old', body))).toEqual({ check: 'verified', by: keys[0] });
  });

  it('mismatch under none of them; missing and malformed whatever the secrets; not_checked with none', () => {
    expect(checkSignatureWith(keys, body, signatureOf('whsec_else', body))).toEqual({ check: 'mismatch' });
    expect(checkSignatureWith(keys, body, undefined)).toEqual({ check: 'missing' });
    expect(checkSignatureWith(keys, body, signatureOf('whsec_old', body).slice(0, 40))).toEqual({ check: 'malformed' });
    expect(checkSignatureWith([], body, signatureOf('whsec_old', body))).toEqual({ check: 'not_checked' });
  });
});
