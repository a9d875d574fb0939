import { describe, expect, it } from 'vitest';
import { Filter, ScreenModel, type Searchable } from '../../../src/screen/model.js';

// The screen's state alone: rows, the filter, the selection that follows the newest row until the user moves, the
// pause that loses nothing, the bound on rows.

interface Item {
  id: string;
  event: string;
  status: string;
  body?: string;
}

const describeItem = (item: Item): Searchable => ({ event: item.event, statuses: [item.status], id: item.id, body: item.body ?? '' });
const modelOf = (...items: Item[]) => {
  const model = new ScreenModel<Item>(describeItem);
  for (const item of items) model.put(item.id, item);
  return model;
};
const ids = (model: ScreenModel<Item>) => model.shown.map((row) => row.key);
const item = (id: string, event = 'invoice.paid', status = 'verified', body = `{"id":"${id}"}`): Item => ({ id, event, status, body });

describe('the selection', () => {
  it('follows the newest row until the user moves up; moving back to the newest follows again', () => {
    const model = modelOf(item('a'), item('b'));
    expect(model.selected).toBe('b');
    model.put('c', item('c'));
    expect(model.selected, 'the newest in view').toBe('c');
    model.move(-1);
    expect(model.selected).toBe('b');
    model.put('d', item('d'));
    expect(model.selected, 'the user moved: it stays').toBe('b');
    model.move(-5);
    expect(model.selected, 'clamped at the first').toBe('a');
    model.moveTo('last');
    model.put('e', item('e'));
    expect(model.selected).toBe('e');
  });

  it('keeps the selected row in the window, and the window at the newest while it follows', () => {
    const model = modelOf(...'abcdefghij'.split('').map((id) => item(id)));
    expect(model.window(3)).toEqual({ rows: model.shown.slice(7), selectedAt: 2 });
    model.move(-4);
    const { rows, selectedAt } = model.window(3);
    expect(rows[selectedAt]!.key).toBe('f');
    model.moveTo('first');
    expect(model.window(3).rows.map((row) => row.key)).toEqual(['a', 'b', 'c']);
    expect(model.window(20).rows).toHaveLength(10);
  });
});

describe('the filter', () => {
  const model = () =>
    modelOf(
      item('dlv_1', 'invoice.paid', 'verified', '{"id":"inv_123"}'),
      item('dlv_2', 'production_order.completed', 'mismatch', '{"order":"po_9"}'),
      item('dlv_3', 'invoice.paid', 'failed', '{"id":"inv_456"}'),
    );

  it('matches the event type, a state word, the id and the body, every word', () => {
    const m = model();
    m.setFilter('invoice.paid');
    expect(ids(m)).toEqual(['dlv_1', 'dlv_3']);
    m.setFilter('invoice failed');
    expect(ids(m)).toEqual(['dlv_3']);
    m.setFilter('po_9');
    expect(ids(m)).toEqual(['dlv_2']);
    m.setFilter('DLV_1');
    expect(ids(m)).toEqual(['dlv_1']);
    m.setFilter('');
    expect(ids(m)).toHaveLength(3);
  });

  it('event: and status: match exactly, event: with * within a name', () => {
    const m = model();
    m.setFilter('event:invoice.*');
    expect(ids(m)).toEqual(['dlv_1', 'dlv_3']);
    m.setFilter('event:invoice');
    expect(ids(m)).toEqual([]);
    m.setFilter('status:mismatch');
    expect(ids(m)).toEqual(['dlv_2']);
    expect(new Filter('status:fail').matches({ event: '', statuses: ['failed'], id: '', body: '' })).toBe(false);
  });

  it('applies as it is typed; Escape drops it, Enter keeps it; a row that does not match is not shown as it arrives', () => {
    const m = model();
    m.startFilter();
    m.editFilter('inv');
    expect(ids(m)).toEqual(['dlv_1', 'dlv_3']);
    m.endFilter(false);
    expect(ids(m)).toHaveLength(3);
    expect(m.editing).toBeUndefined();
    m.startFilter();
    m.editFilter('status:verified');
    m.endFilter(true);
    m.put('dlv_4', item('dlv_4', 'invoice.paid', 'mismatch'));
    m.put('dlv_5', item('dlv_5'));
    expect(ids(m)).toEqual(['dlv_1', 'dlv_5']);
    expect(m.total).toBe(5);
    expect(m.selected).toBe('dlv_5');
  });

  it('a selection the filter hides goes to the newest row shown', () => {
    const m = model();
    m.moveTo('first');
    m.setFilter('production');
    expect(m.selected).toBe('dlv_2');
  });
});

describe('pause', () => {
  it('holds what arrives, new rows and changes alike, and shows it all, in order, on resume', () => {
    const m = modelOf(item('a'), item('b'));
    m.togglePause();
    m.put('c', item('c'));
    m.put('a', item('a', 'invoice.paid', 'failed'));
    m.put('d', item('d'));
    expect(ids(m)).toEqual(['a', 'b']);
    expect(m.waiting).toBe(3);
    expect(m.shown[0]!.item.status).toBe('verified');
    m.togglePause();
    expect(ids(m)).toEqual(['a', 'b', 'c', 'd']);
    expect(m.shown[0]!.item.status, 'the change, in place').toBe('failed');
    expect(m.waiting).toBe(0);
    expect(m.selected).toBe('d');
  });
});

describe('changes and bounds', () => {
  it('a known key changes its row in place; the filter sees the change', () => {
    const m = modelOf(item('a', 'invoice.paid', 'pending'), item('b'));
    m.setFilter('status:failed');
    expect(ids(m)).toEqual([]);
    m.put('a', item('a', 'invoice.paid', 'failed'));
    expect(ids(m)).toEqual(['a']);
    m.put('a', item('a', 'invoice.paid', 'delivered'));
    expect(ids(m)).toEqual([]);
    expect(m.total).toBe(2);
  });

  it('past its bound the oldest tenth goes, counted; a selection still held stays', () => {
    const m = new ScreenModel<Item>(describeItem, { rows: 100, bytes: Number.POSITIVE_INFINITY });
    for (let n = 0; n < 100; n += 1) m.put(`r${n}`, item(`r${n}`));
    m.moveTo('last');
    m.move(-50);
    expect(m.selected).toBe('r49');
    m.put('r100', item('r100'));
    expect(m.total).toBe(91);
    expect(m.dropped).toBe(10);
    expect(m.shown[0]!.key).toBe('r10');
    expect(m.selected).toBe('r49');
    expect(m.current?.key).toBe('r49');
  });

  it('past its bytes, the oldest go until a tenth of them is free: large bodies cannot fill the memory', () => {
    const m = new ScreenModel<Item>(describeItem, { rows: 1_000, bytes: 1_000, weigh: (it) => it.body?.length ?? 0 });
    for (let n = 0; n < 10; n += 1) m.put(`r${n}`, item(`r${n}`, 'invoice.paid', 'verified', 'x'.repeat(100)));
    expect(m.total).toBe(10);
    m.put('big', item('big', 'invoice.paid', 'verified', 'x'.repeat(500)));
    expect(m.all().map((row) => row.key)).toEqual(['r6', 'r7', 'r8', 'r9', 'big']);
    expect(m.dropped).toBe(6);
    m.put('huge', item('huge', 'invoice.paid', 'verified', 'x'.repeat(5_000)));
    expect(
      m.all().map((row) => row.key),
      'the newest stays, whatever its size',
    ).toEqual(['huge']);
  });

  it('thousands of deliveries: each arrival reads its own row once, not the list again', () => {
    let reads = 0;
    const m = new ScreenModel<Item>((it) => {
      reads += 1;
      return describeItem(it);
    });
    for (let n = 0; n < 5_000; n += 1) m.put(`r${n}`, item(`r${n}`));
    expect(reads).toBe(5_000);
    m.move(-2_500);
    expect(m.window(20).rows.some((row) => row.key === m.selected)).toBe(true);
    expect(reads).toBe(5_000);
  });
});
