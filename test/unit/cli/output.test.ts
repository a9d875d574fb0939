import { describe, expect, it } from 'vitest';
import { PrintedJson } from '../../../src/cli/json-output.js';
import { writeMoreLine } from '../../../src/cli/output.js';
import { PLAIN } from '../../../src/render/colors.js';
import { argsPasted } from '../../helpers/pasted.js';

function sink() {
  const out = { text: '', write: (chunk: string) => (out.text += chunk) };
  return out;
}

describe('PrintedJson.stream: a document written as it goes', () => {
  it('writes nothing until the first item, then one whole document, an item a line', () => {
    const out = sink();
    const document = new PrintedJson(out).stream('deliveries', { dry_run: true });
    expect(out.text).toBe('');
    document.item({ id: 'a' });
    document.item({ id: 'b', note: 'x\ny' });
    expect(document.started).toBe(true);
    document.end({ summary: { selected: 2 }, interrupted: false });
    expect(out.text).toBe('{"dry_run":true,"deliveries":[\n{"id":"a"},\n{"id":"b","note":"x\\ny"}\n],"summary":{"selected":2},"interrupted":false}\n');
    expect(JSON.parse(out.text)).toEqual({ dry_run: true, deliveries: [{ id: 'a' }, { id: 'b', note: 'x\ny' }], summary: { selected: 2 }, interrupted: false });
  });

  it('with no item, the end alone is still one document', () => {
    const out = sink();
    const document = new PrintedJson(out).stream('deliveries', { dry_run: false });
    expect(document.started).toBe(false);
    document.end({ summary: { selected: 0 } });
    expect(JSON.parse(out.text)).toEqual({ dry_run: false, deliveries: [], summary: { selected: 0 } });
  });

  it('cut: left unfinished after its last whole item, on a line of its own, so that no parser takes it for the whole', () => {
    const out = sink();
    const document = new PrintedJson(out).stream('data', {}, true);
    document.item({ id: 'wh_1' });
    document.cut();
    expect(out.text).toBe('{\n  "data": [\n    {\n      "id": "wh_1"\n    }\n');
    expect(() => JSON.parse(out.text)).toThrow();
    const none = sink();
    new PrintedJson(none).stream('data', {}, true).cut();
    expect(none.text).toBe('');
  });

  it('pretty: the same bytes as printing the whole page at once', () => {
    const page = {
      data: [
        { id: 'wh_1', events: ['a', 'b'] },
        { id: 'wh_2', events: [] },
      ],
      has_more: false,
      next_cursor: null,
    };
    const out = sink();
    const document = new PrintedJson(out).stream('data', {}, true);
    for (const item of page.data) document.item(item);
    document.end({ has_more: false, next_cursor: null });
    expect(out.text).toBe(`${JSON.stringify(page, null, 2)}\n`);
    const empty = sink();
    new PrintedJson(empty).stream('data', {}, true).end({ has_more: false, next_cursor: null });
    expect(empty.text).toBe(`${JSON.stringify({ data: [], has_more: false, next_cursor: null }, null, 2)}\n`);
  });
});

describe('writeMoreLine: the line under a list that showed part of what there is', () => {
  // A cursor as the sandbox gives one: wider than a line of 60 or 80 columns after the prose.
  const cursor = `cur_${'Zm9vYmFyYmF6'.repeat(7)}`;
  const command = `whsvc deliveries list wh_7a9121f85d9342c47a53ba45 --limit 2 --cursor ${cursor}`;

  it('the command for the next page ends the line: pasted from `whsvc` on at 60 and 80, bash reads exactly its words', () => {
    for (const columns of [60, 80, 200]) {
      const stderr = Object.assign(sink(), { isTTY: true, columns });
      writeMoreLine({ stderr, errColors: PLAIN }, 2, { command });
      const laid = stderr.text;
      expect(laid.replace(/\s+/g, ' ').startsWith('More than the 2 shown (--all shows every one); the next page: whsvc'), laid).toBe(true);
      expect(argsPasted(laid.slice(laid.indexOf('whsvc'))), laid).toEqual(command.split(' '));
    }
  });

  it('across webhooks, with no cursor: a sentence with no command in it', () => {
    const stderr = Object.assign(sink(), { isTTY: false });
    writeMoreLine({ stderr, errColors: PLAIN }, 2, { flag: '--limit N' });
    expect(stderr.text).toBe('More than the 2 shown: --limit N shows more, --all every one.\n');
  });
});
