import { describe, expect, it } from 'vitest';
import type { Attempt } from '../../../src/api/shapes.js';
import type { Change } from '../../../src/commands/deliveries/tail/follow.js';
import { TailPrinter, type ForwardLine } from '../../../src/commands/deliveries/tail/printer.js';
import { forwardRoute } from '../../../src/receiver/routes.js';
import type { Decision } from '../../../src/receiver/answer.js';
import { receiptLayout, receiptLine, type AnswerWords } from '../../../src/commands/listen/receipt.js';
import type { Receipt } from '../../../src/receiver/receive.js';
import { PLAIN } from '../../../src/render/colors.js';
import { StreamLayout } from '../../../src/render/line.js';
import { displayWidth, dropWords } from '../../../src/render/width.js';
import { Collector } from '../../helpers/fake-deps.js';
import { PrintedJson } from '../../../src/cli/json-output.js';
import { onlyWholeWords } from '../../helpers/words.js';

const WIDTHS = [60, 80, 100, 132] as const;
const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const at = (seconds: number) => new Date(NOW + seconds * 1000).toISOString();

describe('a stream decides its fields once, from the width', () => {
  const fields = () =>
    new StreamLayout<'a' | 'b' | 'c' | 'd'>(
      [
        { key: 'a', width: 8 },
        { key: 'b', width: 20, min: 10, give: 1, drop: 2, cut: 'words' },
        { key: 'c', width: 6 },
        { key: 'd', width: 10 },
      ],
      40,
    );

  it('an id shortened before a later step left a field out is whole where that room holds it (issue 44)', () => {
    const id = 'dlv_0123456789abcdef01234567';
    const layout = new StreamLayout<'id' | 'event' | 'code'>(
      [
        { key: 'id', width: 28, min: 11, give: 1, cut: 'id' },
        { key: 'event', width: 26, drop: 2 },
        { key: 'code', width: 9 },
      ],
      45,
    );
    expect(layout.has('event')).toBe(false);
    expect(layout.compact('id')).toBe(false);
    expect(layout.line({ id: layout.id('id', id), code: '200' })).toBe(`${id}  200`);
    // Where it does not fit whole even so, short.
    const narrow = new StreamLayout<'id' | 'code'>(
      [
        { key: 'id', width: 28, min: 11, give: 1, cut: 'id' },
        { key: 'code', width: 9 },
      ],
      30,
    );
    expect(narrow.id('id', id)).toBe('dlv_01…4567');
  });

  it('a field left out is left out of every line, whatever the line holds', () => {
    const layout = new StreamLayout<'a' | 'b' | 'c'>(
      [
        { key: 'a', width: 8 },
        { key: 'b', width: 26, drop: 0 },
        { key: 'c', width: 10 },
      ],
      40,
    );
    expect(layout.has('b')).toBe(false);
    // A short value of b would fit on this line: it is left out all the same.
    expect(layout.line({ a: '12:00:00', b: 'x', c: 'delivered' })).toBe('12:00:00  delivered');
  });

  it('every field keeps its place: a blank for a value a line lacks, padding for a short one', () => {
    const layout = fields();
    expect(layout.compact('b')).toBe(true);
    const lines = [layout.line({ a: '12:00:00', b: 'invoice.paid', c: '200', d: 'end' }), layout.line({ a: '12:00:01', c: '503', d: 'end' })];
    expect(lines).toEqual(['12:00:00  invoice.…   200     end', '12:00:01              503     end']);
    for (const line of lines) expect(displayWidth(line)).toBeLessThanOrEqual(40);
  });

  it('in a pipe every field is shown whole, never cut', () => {
    const layout = new StreamLayout<'a' | 'b'>(
      [
        { key: 'a', width: 4, drop: 0 },
        { key: 'b', width: 4, min: 2, give: 0 },
      ],
      undefined,
    );
    expect(layout.line({ a: 'longer than four', b: 'also long' })).toBe('longer than four  also long');
  });
});

describe('deliveries tail: every line of a stream has the same fields in the same places', () => {
  const attempt = (fields: Partial<Attempt>): Attempt => ({
    id: 'dlv_eb21e83a2f0dc702c917aaee',
    event: 'invoice.paid',
    status: 'delivered',
    response_code: 200,
    attempts: 1,
    created_at: at(-5),
    ...fields,
  });
  const changes: Change[] = [
    { kind: 'new', webhookId: 'wh_c83aff767de74af5b1f8e3ad', attempt: attempt({}) },
    {
      kind: 'new',
      webhookId: 'wh_05508bd8f0cc734ca225f39b',
      attempt: attempt({
        id: 'dlv_2d5c16aa0000000000000001',
        event: 'production_order.completed',
        status: 'failed',
        response_code: 0,
        next_attempt_at: at(60),
      }),
    },
    {
      kind: 'status',
      previous: 'pending',
      webhookId: 'wh_05508bd8f0cc734ca225f39b',
      attempt: attempt({
        id: 'dlv_2d5c16aa0000000000000002',
        delivery_id: 'dlv_2d5c16aa0000000000000001',
        attempts: 2,
        status: 'failed',
        response_code: 503,
        // As read once #3 was made: null, for it is no longer the newest.
        next_attempt_at: null,
      }),
    },
    {
      // The last attempt of a delivery whose retries ran out: the widest status without a time of day.
      kind: 'new',
      webhookId: 'wh_05508bd8f0cc734ca225f39b',
      attempt: attempt({
        id: 'dlv_2d5c16aa0000000000000003',
        delivery_id: 'dlv_2d5c16aa0000000000000001',
        attempts: 3,
        status: 'failed',
        response_code: 503,
        next_attempt_at: null,
      }),
    },
  ];
  const linesAt = (columns: number) => {
    const stdout = new Collector(true, columns);
    const printer = new TailPrinter({ stdout, jsonOut: new PrintedJson(stdout), colors: PLAIN, json: false, serviceNow: () => NOW });
    printer.note(changes);
    for (const change of changes) printer.change(change);
    return stdout.text.trimEnd().split('\n');
  };

  it.each(WIDTHS)('at %i columns', (columns) => {
    const lines = linesAt(columns);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    // The webhook and the event type: on every line or on none.
    for (const shown of [/ wh_/, /invoice\.paid|production_/]) expect(new Set(lines.map((line) => shown.test(line))).size, lines.join('\n')).toBe(1);
    // The code and the delivery start in the same column on every line.
    const codeAt = lines.map((line) => line.search(/(\d{3}|no answer) +dlv_/));
    expect(new Set(codeAt).size, lines.join('\n')).toBe(1);
    expect(new Set(lines.map((line) => line.indexOf('dlv_'))).size).toBe(1);
    // The delivery id whole, or in its one short form.
    for (const line of lines) expect(line).toMatch(/ (dlv_eb21e83a2f0dc702c917aaee|dlv_eb…aaee|dlv_2d5c16aa0000000000000001|dlv_2d…0001) #\d/);
  });

  it('which fields, by width', () => {
    // At 132 both ids whole (the attempt's own id and `pending →` gone), the event type cut between its words in the
    // room left.
    expect(linesAt(132)[1]).toMatch(
      /^\d\d:\d\d:\d\d {2}wh_05508bd8f0cc734ca225f39b {2}production_order\.… +failed · retry due \d\d:\d\d:\d\d +no answer {2}dlv_2d5c16aa0000000000000001 #1$/,
    );
    expect(linesAt(100)[1]).toMatch(/^\d\d:\d\d:\d\d {2}wh_055…f39b {2}production_order\.… +failed · retry due \d\d:\d\d:\d\d {2}no answer {2}dlv_2d…0001 #1$/);
    // At 80 the webhook in the event type's place, as deliveries list across webhooks has it: whose delivery it is.
    expect(linesAt(80)[1]).toMatch(/^\d\d:\d\d:\d\d {2}wh_055…f39b {2}failed · retry due \d\d:\d\d:\d\d {2}no answer {2}dlv_2d…0001 #1$/);
    // Retries of it came in the same poll: an attempt before the newest says its own status; the newest, its fate.
    expect(linesAt(132)[2]).toMatch(/ {2}failed {2,}503 {2,}dlv_2d5c16aa0000000000000001 #2$/);
    expect(linesAt(132)[3]).toMatch(/ {2}failed · no more retries {2,}503 {2,}dlv_2d5c16aa0000000000000001 #3/);
    // At 60 the status keeps its words, the glossary's compact fate (`failed · retry due`, no time of day), as
    // deliveries list says it at 60: the webhook goes (issue 44).
    expect(linesAt(60)[1]).toMatch(/^\d\d:\d\d {2}failed · retry due {8}no answer {2}dlv_2d…0001 #1$/);
    expect(linesAt(60)[3]).toMatch(/^\d\d:\d\d {2}failed · no more retries {2}503 {8}dlv_2d…0001 #3$/);
  });
});

/** A listen decision: a verified first attempt answered 200, with `fields` over it. */
const decision = (fields: Partial<Decision>): Decision => ({
  filtered: false,
  event: 'invoice.paid',
  headerEvent: 'invoice.paid',
  eventMismatch: false,
  signatureCheck: 'verified',
  verifiedBy: null,
  deliveryId: 'dlv_eb21e83a2f0dc702c917aaee',
  attempt: '1',
  attemptNumber: 1,
  repeat: null,
  repeatOf: null,
  status: 200,
  rule: 'respond_status',
  refusal: '',
  ...fields,
});

describe('listen: every line of a stream has the same fields in the same places', () => {
  const words: AnswerWords = { defaultStatus: true };
  const receipts: Receipt[] = [
    decision({}),
    decision({
      event: 'production_order.completed',
      attempt: '2',
      attemptNumber: 2,
      repeat: 'retry',
      repeatOf: 'dlv_eb21e83a2f0dc702c917aaee',
      status: 202,
      rule: 'forward',
    }),
    decision({ signatureCheck: 'mismatch', status: 400, rule: 'signature' }),
  ].map((d, i) => ({
    decision: d,
    receivedAt: new Date(NOW + i * 1000),
    headers: {},
    body: Buffer.from('{}'),
    path: '/',
    tookMs: 1,
    ...(d.rule === 'forward' ? { forwarded: { url: 'http://127.0.0.1:3000/hooks', route: 'invoice.*', status: 202 } } : {}),
  }));
  const linesAt = (columns: number) => {
    const layout = receiptLayout(words, ['invoice.*', '*'], columns);
    return receipts.map((receipt) => receiptLine(receipt, words, PLAIN, layout).trimEnd());
  };

  it.each(WIDTHS)('at %i columns', (columns) => {
    const lines = linesAt(columns);
    for (const line of lines) expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    // The event type: on every line or on none; the answer in one place.
    expect(new Set(lines.map((line) => /invoice\.paid|production_/.test(line))).size, lines.join('\n')).toBe(1);
    expect(new Set(lines.map((line) => line.indexOf('-> '))).size, lines.join('\n')).toBe(1);
    // What is odd about a delivery is said at every width; the signature check in the glossary's word, the same at
    // every width (never `signature verified` at one and `verified` at another).
    expect(lines[1]).toMatch(/ retry$/);
    expect(lines[0]).toMatch(/ #1 +verified {2,}-> 200/);
    expect(lines[2]).toMatch(/ #1 +mismatch {2,}-> 400/);
  });

  it('the route (`via …`) is on every forwarded line, or on none, by width', () => {
    expect(linesAt(132)[1]).toMatch(
      /^12:00:01 {2}production_order\.completed {2}dlv_eb…aaee #2 +verified +-> 202 \(forwarded\) +app 202 +via invoice\.\* +retry$/,
    );
    expect(linesAt(132)[0]).toMatch(/-> 200 \(default\)$/);
    expect(linesAt(100)[1]).toMatch(/ {2}-> 202 {2}app 202 +retry$/);
    for (const columns of [60, 80, 100]) for (const line of linesAt(columns)) expect(line).not.toContain('via ');
    expect(linesAt(80)[1]).toMatch(/^12:00:01 {2}production_… {2,}dlv_eb…aaee #2 +verified +-> 202 {2}app 202 +retry$/);
    expect(linesAt(60)[1]).toMatch(/^12:00:01 {2}dlv_eb…aaee #2 +verified +-> 202 {2}retry$/);
  });
});

describe('no word cut in two: a value too wide for its place loses whole words (issue 44)', () => {
  it('dropWords keeps whole words, `…` saying some were left out; never a word cut, not even at a dot or an underscore', () => {
    expect(dropWords('app: no answer: connection refused', 18)).toBe('app: no answer…');
    expect(dropWords('no secret yet', 8)).toBe('no…');
    expect(dropWords('signature verified', 15)).toBe('signature…');
    expect(dropWords('retry of dlv_eb…aaee', 15)).toBe('retry of…');
    expect(dropWords('signature', 5)).toBe('…');
    expect(dropWords('fits', 4)).toBe('fits');
    // A separator between phrases goes with the phrase after it.
    expect(dropWords('attempt 2 failed · retry due', 20)).toBe('attempt 2 failed…');
  });

  const listenLines = (columns: number | undefined) => {
    const words: AnswerWords = { defaultStatus: true };
    const layout = receiptLayout(words, ['*'], columns);
    const receipt: Receipt = {
      decision: decision({ signatureCheck: 'not_checked', status: 502, rule: 'forward' }),
      receivedAt: new Date(NOW),
      path: '/hooks',
      tookMs: 1,
      headers: {},
      body: Buffer.from('{}'),
      forwarded: { url: 'http://127.0.0.1:3000/hooks', route: '*', status: null, error: 'connection refused' },
    };
    return receiptLine(receipt, words, PLAIN, layout).trimEnd();
  };

  it.each(WIDTHS)("listen's notes at %i columns: whole words, or left out", (columns) => {
    const whole = listenLines(undefined);
    expect(whole).toMatch(/no secret yet {2}app: no answer: connection refused$/);
    const line = listenLines(columns);
    expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
    expect(onlyWholeWords(line, whole), `${line}\n${whole}`).toBe(true);
  });

  const forwardLine = (columns: number | undefined, outcome: ForwardLine) => {
    const stdout = new Collector(columns !== undefined, columns);
    const route = forwardRoute('http://127.0.0.1:3000/app/webhooks/receive');
    const printer = new TailPrinter({ stdout, jsonOut: new PrintedJson(stdout), colors: PLAIN, json: false, serviceNow: () => NOW }, [route]);
    const attempt: Attempt = {
      id: 'dlv_eb21e83a2f0dc702c917aaee',
      event: 'invoice.paid',
      status: 'failed',
      response_code: 502,
      attempts: 1,
      created_at: at(-5),
    };
    printer.forward({ kind: 'new', webhookId: 'wh_c83aff767de74af5b1f8e3ad', attempt }, attempt.id, route, outcome);
    return stdout.text.trimEnd();
  };
  const record = { id: 'dlv_eb21e83a2f0dc702c917aaee' } as Attempt;
  const down: ForwardLine = { kind: 'no_answer', error: 'connection refused', signatureCheck: 'verified', record };
  const taken: ForwardLine = { kind: 'answered', status: 202, signatureCheck: 'not_checked', record };

  it.each(WIDTHS)("tail --forward-to's lines at %i columns: the app's answer and the signature's verdict whole, no word cut", (columns) => {
    for (const outcome of [down, taken]) {
      const line = forwardLine(columns, outcome);
      expect(displayWidth(line), line).toBeLessThanOrEqual(columns);
      expect(onlyWholeWords(line, forwardLine(undefined, outcome)), `${line}\n${forwardLine(undefined, outcome)}`).toBe(true);
      expect(line).toMatch(outcome === down ? /app down +verified( |$)/ : /app 202 +not checked( |$)/);
    }
  });

  it('tail --forward-to by width: the verdict alone at every width, why the app did not answer at 132, the URL gone at 60 (the arrow on the answer then)', () => {
    expect(forwardLine(132, down)).toMatch(
      / {2}→ http:\/\/127\.0\.0\.1:3000\/… +dlv_eb21e83a2f0dc702c917aaee #1 +app down {4}verified {5}no answer: connection refused: not…$/,
    );
    expect(forwardLine(80, down)).toMatch(/^\d\d:\d\d:\d\d {2}→ http:\/\/127\.0\.0\.1:3000\/… +dlv_eb…aaee #1 +app down {4}verified$/);
    expect(forwardLine(60, down)).toMatch(/^\d\d:\d\d:\d\d {2}dlv_eb…aaee #1 +→ app down {2}verified$/);
  });
});
