import { execFileSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Agent } from 'undici';
import { undiciTransport, type TransportRequest } from '../../../../src/api/transport.js';
import { run } from '../../../../src/commands/replay/replay.js';
import { checkRecordFile, splitLines } from '../../../../src/commands/replay/record-reader.js';
import { recordedBody } from '../../../../src/protocol/record-line.js';
import { recordOf } from '../../../helpers/delivery.js';
import { canMakeDeviceNodes } from '../../../helpers/bad-files.js';
import { startEndlessServer } from '../../../helpers/endless.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';

const dir = mkdtempSync(join(tmpdir(), 'whsvc-replay-records-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const record = recordOf;
const fileOf = (name: string, lines: string[]) => {
  const path = join(dir, name);
  writeFileSync(path, lines.join('\n'));
  return path;
};
async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}
const bytesOf = async (chunks: string[], max = 1000) =>
  (
    await collect(
      splitLines(
        (async function* () {
          for (const chunk of chunks) yield Buffer.from(chunk);
        })(),
        max,
      ),
    )
  ).map((line) => (line.tooLong ? { tooLong: line.bytes } : line.text.toString()));

describe('splitLines: a stream of bytes as lines, however they were cut', () => {
  it('joins a line cut across chunks, and keeps each line whole, an empty one and a last one with no newline too', async () => {
    expect(await bytesOf(['a', 'b\nc', 'd\n\ne', 'f'])).toEqual(['ab', 'cd', '', 'ef']);
    expect(await bytesOf(['ab\n', 'cd\r\n'])).toEqual(['ab', 'cd\r']);
    expect(await bytesOf([])).toEqual([]);
    const e = Buffer.from('é');
    const lines = await collect(
      splitLines(
        (async function* () {
          yield Buffer.concat([Buffer.from('x'), e.subarray(0, 1)]);
          yield Buffer.concat([e.subarray(1), Buffer.from('\n')]);
        })(),
        100,
      ),
    );
    expect(lines.map((line) => [line.text.toString(), line.bytes])).toEqual([['xé', 4]]);
  });

  it('a line longer than the limit ends the stream there, said once', async () => {
    expect(await bytesOf(['ab\n', 'cdefg', 'hij\nk'], 4)).toEqual(['ab', { tooLong: 5 }]);
  });
});

describe('checkRecordFile: the whole file checked, streaming, before anything is sent', () => {
  const big = 'é'.repeat(3000);
  const bom = `\ufeff{"id":"inv_1"}`;
  const lines = [
    JSON.stringify(record({ body: big })),
    '',
    JSON.stringify(record({ event: 'product.updated', delivery_id: 'dlv_2', body: bom })),
    JSON.stringify(record({ delivery_id: 'dlv_3', body: undefined, body_base64: Buffer.from([0xff, 0x00]).toString('base64') })),
  ];

  it('reads lines cut across many small chunks (7 bytes) and gives back the chosen records, bytes exact', async () => {
    const file = fileOf('good.ndjson', lines);
    const checked = await checkRecordFile(file, (r) => r.event === 'invoice.paid', { chunkBytes: 7 });
    expect(checked.count).toBe(2);
    const again = await collect(checked.chosen());
    await checked.close();
    expect(again.map((r) => r.delivery_id)).toEqual(['dlv_1', 'dlv_3']);
    expect(recordedBody(again[0]!).equals(Buffer.from(big))).toBe(true);
    expect(recordedBody(again[1]!).equals(Buffer.from([0xff, 0x00]))).toBe(true);
    const all = await checkRecordFile(file, () => true, { chunkBytes: 7 });
    const bomRecord = (await collect(all.chosen()))[1]!;
    await all.close();
    expect(recordedBody(bomRecord).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
  });

  it('a bad line anywhere is FILE:LINE, from the check, before any record is given', async () => {
    const cases: [string[], string][] = [
      [[...lines, '{"whsvc_record":1'], ':5: not JSON'],
      [[lines[0]!, JSON.stringify(record({ headers: { 'x-name': '日本' } }))], ':2: the header "x-name" holds U+65E5'],
    ];
    for (const [content, why] of cases) {
      const file = fileOf('bad.ndjson', content);
      await expect(checkRecordFile(file, () => true, { chunkBytes: 7 })).rejects.toThrow(`${file}${why}`);
    }
    const notUtf8 = join(dir, 'latin1.ndjson');
    writeFileSync(notUtf8, Buffer.concat([Buffer.from(`${lines[0]}\n{"a":"`), Buffer.from([0xe9]), Buffer.from('"}\n')]));
    await expect(checkRecordFile(notUtf8, () => true, { chunkBytes: 7 })).rejects.toThrow(`${notUtf8}:2: not UTF-8 text`);
  });

  it('a line longer than one record can be read as is FILE:LINE too', async () => {
    const file = fileOf('long.ndjson', [JSON.stringify(record()), JSON.stringify(record({ body: 'x'.repeat(5000) }))]);
    await expect(checkRecordFile(file, () => true, { chunkBytes: 64, maxLineBytes: 1000 })).rejects.toThrow(`${file}:2: longer than 1,000 bytes`);
  });

  it('the second reading ends where the check did: what a listen appends meanwhile waits for the next replay', async () => {
    const file = fileOf('growing.ndjson', [lines[0]!, '']);
    const checked = await checkRecordFile(file, () => true, { chunkBytes: 7 });
    appendFileSync(file, `${JSON.stringify(record({ delivery_id: 'dlv_later' }))}\n{"half":`);
    expect((await collect(checked.chosen())).map((r) => r.delivery_id)).toEqual(['dlv_1']);
    await checked.close();
  });

  it('a FIFO (no writer) or a device is refused at once, exit 2, never waited on', async () => {
    const fifo = join(dir, 'fifo');
    execFileSync('mkfifo', [fifo]);
    const hint = 'give the path of a record file, or - to pipe records in (zcat f.ndjson.gz | whsvc replay - --to URL)';
    await expect(checkRecordFile(fifo, () => true)).rejects.toMatchObject({ exitCode: 2, message: `${fifo} is a FIFO, not a regular file`, hint });
    if (canMakeDeviceNodes()) {
      const device = join(dir, 'null');
      execFileSync('mknod', [device, 'c', '1', '3']);
      await expect(checkRecordFile(device, () => true)).rejects.toMatchObject({ exitCode: 2, message: `${device} is a device, not a regular file` });
    }
  });

  it('records piped in (-) are read once, and the records it checked are given', async () => {
    const checked = await checkRecordFile('-', () => true, { chunkBytes: 7 }, fakeStdin([lines[0]!.slice(0, 10), `${lines[0]!.slice(10)}\n${lines[2]}\n`]));
    expect(checked).toMatchObject({ name: 'stdin', count: 2 });
    expect((await collect(checked.chosen())).map((r) => r.delivery_id)).toEqual(['dlv_1', 'dlv_2']);
    await checked.close();
    await expect(checkRecordFile('-', () => true, {}, fakeStdin('{"not":"a record"}\n'))).rejects.toMatchObject({
      exitCode: 2,
      message: 'stdin:1: not a record (no "whsvc_record": 1)',
    });
    await expect(checkRecordFile('-', () => true, {}, fakeStdin('', true))).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/^replay - reads records from stdin, which is a terminal/),
    });
  });

  it('a file that cannot be read is one line, exit 2', async () => {
    await expect(checkRecordFile(join(dir, 'none.ndjson'), () => true)).rejects.toMatchObject({
      exitCode: 2,
      message: `${join(dir, 'none.ndjson')}: cannot be read (ENOENT)`,
    });
    await expect(checkRecordFile(dir, () => true)).rejects.toMatchObject({ exitCode: 2, message: `${dir} is a directory, not a regular file` });
  });
});

describe('replay run: what is sent', () => {
  const options = (file: string) => ({ file, to: 'http://127.0.0.1:9/app', concurrency: 2, dryRun: false, json: true, color: false });
  const deps = (sent: TransportRequest[], stdout = new Collector()) => ({
    stdin: undefined as never,
    stdout,
    stderr: new Collector(),
    env: {},
    jsonOut: new PrintedJson(stdout),
    transport: async (request: TransportRequest) => {
      sent.push(request);
      return { status: 200, headers: {}, text: '' };
    },
  });

  it('drops the headers of the hop whatever their case, and sends the rest as recorded, byte for byte', async () => {
    const headers = {
      Expect: '100-continue',
      'Transfer-Encoding': 'chunked',
      CONNECTION: 'keep-alive',
      'Keep-Alive': 'timeout=5',
      Host: '127.0.0.1:1',
      'Content-Length': '2',
      TE: 'trailers',
      Trailer: 'x',
      Upgrade: 'h2c',
      'Proxy-Connection': 'keep-alive',
      'x-name': Buffer.from('café').toString('latin1'),
      'X-Service-Signature': 'sha256=00',
    };
    const file = fileOf('hop.ndjson', [JSON.stringify(record({ headers }))]);
    const sent: TransportRequest[] = [];
    const d = deps(sent);
    expect(await run({ ...options(file), concurrency: 1 }, d as never)).toBe(0);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.headers).toEqual({ 'x-name': 'cafÃ©', 'X-Service-Signature': 'sha256=00' });
    expect(Buffer.from(sent[0]!.headers['x-name']!, 'latin1').toString('utf8')).toBe('café');
  });

  it('replay - sends the records piped in, and names stdin; with --secret-file - too it is a usage error, before anything is read', async () => {
    const piped = [JSON.stringify(record({ delivery_id: 'dlv_a' })), JSON.stringify(record({ delivery_id: 'dlv_b' }))].join('\n');
    const sent: TransportRequest[] = [];
    const d = { ...deps(sent), stdin: fakeStdin(piped) };
    expect(await run({ ...options('-'), dryRun: true, json: false }, d as never)).toBe(0);
    expect(d.stderr.text).toBe('whsvc: 2 deliveries of stdin would be sent to http://127.0.0.1:9/app\n');
    expect(await run(options('-'), { ...deps(sent), stdin: fakeStdin(piped) } as never)).toBe(0);
    expect(sent).toHaveLength(2);
    await expect(run({ ...options('-'), secretFile: '-' }, { ...deps([]), stdin: fakeStdin(piped) } as never)).rejects.toMatchObject({
      exitCode: 2,
      message: 'replay - and --secret-file - both read stdin, which can be read once: give one of them a file',
    });
  });

  it('a line past 16 MiB (no record of listen is near it) is refused with its line number, exit 2, before anything is sent, from a file or stdin', async () => {
    const first = `${JSON.stringify(record())}\n`;
    const MiB = Buffer.alloc(1024 * 1024, 0x61);
    // 17 MiB on line 2, written and piped 1 MiB at a time: never one string.
    const file = join(dir, 'overlong.ndjson');
    writeFileSync(file, first);
    for (let i = 0; i < 17; i++) appendFileSync(file, MiB);
    const piped = {
      isTTY: false,
      async *[Symbol.asyncIterator]() {
        yield Buffer.from(first);
        for (let i = 0; i < 17; i++) yield MiB;
      },
    };
    const why = ':2: longer than 16 MiB, the most replay reads as one record (listen records bodies of at most 1 MiB)';
    const sent: TransportRequest[] = [];
    await expect(run(options(file), deps(sent) as never)).rejects.toMatchObject({ exitCode: 2, message: `${file}${why}` });
    await expect(run(options('-'), { ...deps(sent), stdin: piped } as never)).rejects.toMatchObject({ exitCode: 2, message: `stdin${why}` });
    expect(sent).toHaveLength(0);
  });

  it('replay - keeps what is piped in in a scratch file, gone from its directory at once, and read again from there', async () => {
    const scratchDir = mkdtempSync(join(dir, 'scratch-'));
    const piped = Array.from({ length: 20 }, (_, i) => `${JSON.stringify(record({ delivery_id: `dlv_${i}` }))}\n`);
    const checked = await checkRecordFile('-', () => true, { chunkBytes: 100, scratchDir }, fakeStdin(piped));
    expect(readdirSync(scratchDir)).toEqual([]);
    expect((await collect(checked.chosen())).map((r) => r.delivery_id)).toEqual(piped.map((_, i) => `dlv_${i}`));
    await checked.close();
    expect(readdirSync(scratchDir)).toEqual([]);
  });

  it('sends every record of a file read in small chunks, and nothing when a line near the end is bad', async () => {
    const many = Array.from({ length: 50 }, (_, i) => JSON.stringify(record({ delivery_id: `dlv_${i}` })));
    const sent: TransportRequest[] = [];
    expect(await run(options(fileOf('many.ndjson', many)), { ...deps(sent), readLimits: { chunkBytes: 50 } } as never)).toBe(0);
    expect(sent).toHaveLength(50);
    const none: TransportRequest[] = [];
    const bad = fileOf('bad-late.ndjson', [...many, '{"not":"a record"}']);
    await expect(run(options(bad), { ...deps(none), readLimits: { chunkBytes: 50 } } as never)).rejects.toThrow(`${bad}:51: not a record`);
    expect(none).toHaveLength(0);
  });
});

describe('replay run against an app that answers without end, over real connections', () => {
  it("reads each answer up to its head: each 2xx stands (exit 0), and the app's connection is closed each time", async () => {
    const app = await startEndlessServer({ total: 64 * 1024 * 1024, contentType: 'text/plain' });
    const agent = new Agent();
    try {
      const file = fileOf(
        'endless.ndjson',
        [1, 2, 3].map((i) => JSON.stringify(record({ delivery_id: `dlv_${i}` }))),
      );
      const stdout = new Collector();
      const deps = { stdin: undefined as never, stdout, stderr: new Collector(), env: {}, jsonOut: new PrintedJson(stdout), transport: undiciTransport(agent) };
      expect(await run({ file, to: app.url, concurrency: 2, dryRun: false, json: true, color: false }, deps as never)).toBe(0);
      expect(stdout.text.trim().split('\n').at(-1)).toContain('"ok":3');
      // Not read on: an app answering 64 MiB each time wrote a fraction of it before the connection closed.
      expect(app.written()).toBeLessThan(3 * 64 * 1024 * 1024);
      await app.untilCutOff(3);
    } finally {
      await agent.destroy();
      await app.close();
    }
  });
});
