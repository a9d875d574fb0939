import { describe, expect, it } from 'vitest';
import { JsonValueSplitter } from '../../../src/render/json-values.js';

/** Every value the splitter gives for `chunks` pushed one after the other, then its end. */
function split(chunks: string[]): { values: string[]; end: ReturnType<JsonValueSplitter['end']>; notJson: string | undefined } {
  const splitter = new JsonValueSplitter();
  const values = chunks.flatMap((chunk) => splitter.push(chunk));
  return { values, end: splitter.end(), notJson: splitter.notJson };
}

describe('JsonValueSplitter: the JSON texts of an output, each once whole', () => {
  it('one pretty document, written in pieces (as JsonDocumentStream writes --all), is one value at its last brace', () => {
    const document = JSON.stringify({ data: [{ id: 'wh_1', url: 'https://a/{x}' }, { id: 'wh_2' }], has_more: false, next_cursor: null }, null, 2);
    const pieces = [document.slice(0, 7), document.slice(7, 40), document.slice(40)];
    const splitter = new JsonValueSplitter();
    expect(splitter.push(pieces[0]!)).toEqual([]);
    expect(splitter.push(pieces[1]!)).toEqual([]);
    expect(splitter.push(`${pieces[2]!}\n`)).toEqual([document]);
    expect(splitter.end()).toEqual({ cut: false });
  });

  it('NDJSON: each line is a value as soon as it is written, even two in one write', () => {
    const splitter = new JsonValueSplitter();
    expect(splitter.push('{"url":"http://127.0.0.1:1"}\n')).toEqual(['{"url":"http://127.0.0.1:1"}']);
    expect(splitter.push('{"a":1}\n{"b":[2,{"c":"]}"}]}\n')).toEqual(['{"a":1}', '{"b":[2,{"c":"]}"}]}']);
  });

  it('brackets and quotes inside strings, escaped quotes and backslashes, do not end a value', () => {
    const text = '{"s":"a \\"}\\" b \\\\","t":"{[","u":"\\\\"}';
    expect(JSON.parse(text)).toBeTruthy();
    expect(split([text.slice(0, 9), text.slice(9)]).values).toEqual([text]);
  });

  it('bare values: a string, a number or a word at the top level', () => {
    const { values, end } = split(['"a b" 12', ' true\nnull [1]', '\n-3.5e2']);
    expect(values).toEqual(['"a b"', '12', 'true', 'null', '[1]']);
    expect(end).toEqual({ last: '-3.5e2', cut: false });
  });

  it('a document cut short (a command that failed half-way) is no value, and is said to be cut', () => {
    const { values, end } = split(['{"data":[', '{"id":"wh_1"}']);
    expect(values).toEqual([]);
    expect(end).toEqual({ cut: true });
  });

  it('what cannot begin a JSON text (a shell script, a table) is said once, and nothing after it is read', () => {
    const { values, notJson } = split(['{"a":1}\n', '# bash completion for whsvc\n', '{"b":2}']);
    expect(values).toEqual(['{"a":1}']);
    expect(notJson).toBe('# bash completion fo');
  });
});
