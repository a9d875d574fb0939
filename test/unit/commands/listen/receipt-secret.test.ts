import { describe, expect, it } from 'vitest';
import type { Decision } from '../../../../src/receiver/answer.js';
import { receiptJson, receiptLayout, receiptLine, type AnswerWords } from '../../../../src/commands/listen/receipt.js';
import type { Receipt } from '../../../../src/receiver/receive.js';
import { PLAIN } from '../../../../src/render/colors.js';

// Which secret verified a delivery, when listen has several (a receiver moving to a new one): by its file, never the secret.
describe("listen's lines name the secret file that verified a delivery", () => {
  const decision: Decision = {
    filtered: false,
    event: 'invoice.paid',
    headerEvent: 'invoice.paid',
    eventMismatch: false,
    signatureCheck: 'verified',
    verifiedBy: './new.txt',
    deliveryId: 'dlv_1',
    attempt: '1',
    attemptNumber: 1,
    repeat: null,
    repeatOf: null,
    status: 200,
    rule: 'respond_status',
    refusal: '',
  };
  const receipt: Receipt = { decision, receivedAt: new Date(Date.UTC(2026, 10, 25, 9)), headers: {}, body: Buffer.from('{}'), path: '/', tookMs: 1 };

  it('on its line when there are several secrets, and not otherwise', () => {
    const line = (words: AnswerWords) => receiptLine(receipt, words, PLAIN, receiptLayout(words, [], 200));
    expect(line({ defaultStatus: true, namesSecret: true })).toMatch(/ verified +-> 200 \(default\) +verified by \.\/new\.txt\n$/);
    expect(line({ defaultStatus: true })).not.toContain('new.txt');
  });

  it.each([80, 132])('at %i columns the file that verified it is kept whole: the rule words give way first (issue 44)', (columns) => {
    const words: AnswerWords = { defaultStatus: true, namesSecret: true, secretNames: ['./whsec.txt', './secrets/new.secret'] };
    const shown = receiptLine(
      { ...receipt, decision: { ...decision, deliveryId: 'dlv_eb21e83a2f0dc702c917aaee', verifiedBy: './secrets/new.secret' } },
      words,
      PLAIN,
      receiptLayout(words, [], columns),
    );
    expect(shown.trimEnd()).toMatch(/verified by \.\/secrets\/new\.secret$/);
    expect(shown.trimEnd().length).toBeLessThanOrEqual(columns);
  });

  it('in its --json line always, as verified_by (null when nothing verified it)', () => {
    expect(receiptJson(receipt, { defaultStatus: true })).toMatchObject({ signature_check: 'verified', verified_by: './new.txt' });
    const refused = { ...receipt, decision: { ...decision, signatureCheck: 'mismatch' as const, verifiedBy: null, status: 400 } };
    expect(receiptJson(refused, { defaultStatus: true })).toMatchObject({ signature_check: 'mismatch', verified_by: null });
  });
});
