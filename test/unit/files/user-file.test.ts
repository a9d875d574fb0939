import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RecordFile } from '../../../src/receiver/record-file.js';
import { holdFileLock, withFileLock } from '../../../src/config/lock.js';
import { ensureDirectory, FileError, LineFile, openScratchFile, ReservedFile, readOwnFile, replaceFile } from '../../../src/files/user-file.js';
import { canMakeDeviceNodes } from '../../helpers/bad-files.js';
import { recordOf } from '../../helpers/delivery.js';
import { RECORD_LINE_START } from '../../../src/protocol/record-line.js';

// The one writer of the files a user names: what it refuses before anything happens, and what it leaves behind.
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-user-file-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const realOpenSync = fs.openSync;
const modeOf = (path: string) => statSync(path).mode & 0o777;

function refusal(write: () => unknown): FileError {
  try {
    write();
  } catch (error) {
    expect(error).toBeInstanceOf(FileError);
    return error as FileError;
  }
  throw new Error('expected a refusal');
}

/** Every kind of path that is not a regular file of its own, each made fresh in the test's directory. */
const notRegular: Array<[string, (path: string) => void, RegExp]> = [
  [
    'a symlink to a victim file',
    (path) => {
      writeFileSync(join(dir, 'victim'), 'untouched\n', { mode: 0o644 });
      symlinkSync(join(dir, 'victim'), path);
    },
    /is a symbolic link, not a regular file$/,
  ],
  ['a dangling symlink', (path) => symlinkSync(join(dir, 'nowhere'), path), /is a symbolic link, not a regular file$/],
  ['a directory', (path) => mkdirSync(path), /is a directory, not a regular file$/],
  ['a FIFO (never waited on)', (path) => execFileSync('mkfifo', [path]), /is a FIFO, not a regular file$/],
  [
    'a hard link to a victim file',
    (path) => {
      writeFileSync(join(dir, 'victim'), 'untouched\n', { mode: 0o644 });
      linkSync(join(dir, 'victim'), path);
    },
    /has other hard links/,
  ],
];
// A private device node (the machine's own /dev is never touched): a null device, as /dev/null is.
if (canMakeDeviceNodes()) notRegular.push(['a device node', (path) => execFileSync('mknod', [path, 'c', '1', '3']), /is a device, not a regular file$/]);

describe.each([
  ['LineFile.open', (path: string) => LineFile.open(path, '--record', RECORD_LINE_START)],
  ['ReservedFile.reserve --force', (path: string) => ReservedFile.reserve(path, '--secret-file', true)],
  ['replaceFile', (path: string) => replaceFile(path, '{}\n', '--checkpoint')],
])('%s refuses what is not a regular file of its own, before anything is written', (_name, open) => {
  it.each(notRegular)('%s', (_kind, make, message) => {
    const path = join(dir, 'target');
    make(path);
    const before = statSync(path, { throwIfNoEntry: false });
    const error = refusal(() => open(path));
    expect(error.refused).toBe(true);
    expect(error.message).toMatch(message);
    expect(error.message).toContain(path);
    if (before) expect(modeOf(path)).toBe(before.mode & 0o777);
    if (existsSync(join(dir, 'victim'))) {
      expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('untouched\n');
      expect(modeOf(join(dir, 'victim'))).toBe(0o644);
    }
    // Nothing beside it either (no temporary left behind).
    expect(readdirSync(dir).sort()).toEqual(['target', ...(existsSync(join(dir, 'victim')) ? ['victim'] : [])].sort());
  });
});

describe("another user's file", () => {
  it.runIf(process.geteuid?.() === 0)('is refused (a record file planted in a shared directory), and left as it was', () => {
    const path = join(dir, 'planted.ndjson');
    writeFileSync(path, 'theirs\n');
    chmodSync(path, 0o666);
    chownSync(path, 12345, 12345);
    for (const open of [
      () => LineFile.open(path, '--record', RECORD_LINE_START),
      () => ReservedFile.reserve(path, '--secret-file', true),
      () => replaceFile(path, '{}', '--checkpoint'),
    ]) {
      const error = refusal(open);
      expect(error).toMatchObject({ refused: true, message: `${error.message.split(' ')[0]} ${path} belongs to another user (uid 12345)` });
    }
    expect(readFileSync(path, 'utf8')).toBe('theirs\n');
    expect(modeOf(path)).toBe(0o666);
  });
});

describe('LineFile', () => {
  /** A line as whsvc writes it in a record file. */
  const own = (n: number) => `${RECORD_LINE_START}"n":${n}}`;

  it('creates the file 0600 whatever the umask, and appends whole lines', () => {
    const path = join(dir, 'records.ndjson');
    const previous = process.umask(0o000);
    try {
      const file = LineFile.open(path, '--record', RECORD_LINE_START);
      file.appendLine(own(1));
      file.appendLine(own(2));
      file.close();
    } finally {
      process.umask(previous);
    }
    expect(modeOf(path)).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toBe(`${own(1)}\n${own(2)}\n`);
  });

  it('appends to an existing record file (an empty one too) and leaves its mode as the user set it', () => {
    const path = join(dir, 'records.ndjson');
    for (const before of ['', `${own(1)}\n`]) {
      writeFileSync(path, before);
      chmodSync(path, 0o640);
      const file = LineFile.open(path, '--record', RECORD_LINE_START);
      expect(file.created).toBe(false);
      expect(file.cutAtOpen).toBe(0);
      file.appendLine(own(2));
      file.close();
      expect(readFileSync(path, 'utf8')).toBe(`${before}${own(2)}\n`);
      expect(modeOf(path)).toBe(0o640);
    }
  });

  it('a record file a killed run left ending in a cut line of its own is cut back to its last whole line, so the next line starts on its own', () => {
    const path = join(dir, 'records.ndjson');
    writeFileSync(path, `${own(1)}\n${own(2).slice(0, 20)}`);
    const file = LineFile.open(path, '--record', RECORD_LINE_START);
    expect(file.cutAtOpen).toBe(20);
    file.appendLine(own(3));
    file.close();
    expect(readFileSync(path, 'utf8')).toBe(`${own(1)}\n${own(3)}\n`);
    // One cut line longer than the chunks it is read back in, and nothing before it.
    writeFileSync(path, `${RECORD_LINE_START}"big":"${'x'.repeat(200_000)}`);
    const again = LineFile.open(path, '--record', RECORD_LINE_START);
    expect(again.cutAtOpen).toBe(RECORD_LINE_START.length + 200_007);
    again.close();
    expect(readFileSync(path, 'utf8')).toBe('');
    // Cut within its first bytes: still the start of a record.
    writeFileSync(path, `${own(1)}\n{"whs`);
    const early = LineFile.open(path, '--record', RECORD_LINE_START);
    expect(early.cutAtOpen).toBe(5);
    early.close();
    expect(readFileSync(path, 'utf8')).toBe(`${own(1)}\n`);
  });

  it('a whole line of its own that only lacks its newline (an editor dropped it) is kept, and given its newline', () => {
    const path = join(dir, 'unterminated.ndjson');
    writeFileSync(path, `${own(1)}\n${own(2)}`);
    const file = LineFile.open(path, '--record', RECORD_LINE_START);
    expect(file.cutAtOpen).toBe(0);
    file.appendLine(own(3));
    file.close();
    expect(readFileSync(path, 'utf8')).toBe(`${own(1)}\n${own(2)}\n${own(3)}\n`);
  });

  it("a file of the user's is refused before anything is written, and kept byte for byte", () => {
    const path = join(dir, 'mine.json');
    for (const content of [
      // The 14-byte one-line JSON file a --record once emptied, with no newline and with one.
      '{"keep":"me"}\n'.trim(),
      '{"keep":"me"}\n',
      'notes\n',
      '\n',
      // A record file the user wrote on: its first line or its last (whole or not) is not a record.
      `# header\n${own(1)}\n`,
      `${own(1)}\nmy note`,
      `${own(1)}\nmy note\n`,
      `${own(1)}\n{"whsvc_record":2}\n`,
    ]) {
      writeFileSync(path, content);
      const error = refusal(() => LineFile.open(path, '--record', RECORD_LINE_START));
      expect(error).toMatchObject({ refused: true, message: `--record ${path} is not a record file (its lines are not records whsvc wrote): left as it was` });
      expect(readFileSync(path, 'utf8'), JSON.stringify(content)).toBe(content);
    }
  });

  it('a missing directory is refused in one line naming the path', () => {
    const path = join(dir, 'no', 'such', 'records.ndjson');
    const error = refusal(() => LineFile.open(path, '--record', RECORD_LINE_START));
    expect(error).toMatchObject({ refused: true, message: `--record ${path} cannot be written: its directory does not exist` });
  });
});

describe('ensureDirectory (--data-dir, --secret-dir)', () => {
  it('makes a missing directory and its parents, 0700', () => {
    const path = join(dir, 'a', 'b');
    ensureDirectory(path, '--data-dir');
    expect(statSync(path).isDirectory()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o700);
    ensureDirectory(path, '--data-dir');
  });

  it.each([
    ['a regular file', (path: string) => writeFileSync(path, 'x'), (path: string) => `--data-dir ${path} is a regular file, not a directory`],
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path]), (path: string) => `--data-dir ${path} is a FIFO, not a directory`],
    [
      'a FIFO in the place of a parent',
      (path: string) => execFileSync('mkfifo', [path]),
      (path: string) => `--data-dir ${path}/store cannot be used: a part of the path is not a directory`,
    ],
  ])('refuses %s in its place: a usage error naming it, nothing made', (what, make, message) => {
    const path = join(dir, 'in-place');
    make(path);
    const target = what.includes('parent') ? join(path, 'store') : path;
    const error = refusal(() => ensureDirectory(target, '--data-dir'));
    expect(error).toMatchObject({ refused: true, message: message(path) });
    expect(readdirSync(dir)).toEqual(['in-place']);
  });
});

describe('ReservedFile', () => {
  it('an existing file without --force is refused and kept as it was', () => {
    const path = join(dir, 'whsec.txt');
    writeFileSync(path, 'old\n', { mode: 0o644 });
    const error = refusal(() => ReservedFile.reserve(path, '--secret-file', false));
    expect(error).toMatchObject({ refused: true, hint: 'pass --force to overwrite it, or choose another path' });
    expect(readFileSync(path, 'utf8')).toBe('old\n');
    expect(modeOf(path)).toBe(0o644);
  });

  it('--force leaves the file the user named as it was until the new content is whole, then a 0600 file takes its place', () => {
    const path = join(dir, 'whsec.txt');
    writeFileSync(path, 'an older and longer secret\n', { mode: 0o644 });
    const reserved = ReservedFile.reserve(path, '--secret-file', true);
    expect(modeOf(path)).toBe(0o644);
    expect(readFileSync(path, 'utf8')).toBe('an older and longer secret\n');
    reserved.write('whsec_new\n');
    expect(readFileSync(path, 'utf8')).toBe('whsec_new\n');
    expect(modeOf(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['whsec.txt']);
  });

  it('puts nothing at the path until the content is written whole: a kill meanwhile leaves no file there, never an empty one', () => {
    const path = join(dir, 'wh_1.secret');
    const previous = process.umask(0o000);
    try {
      ReservedFile.reserve(path, '--secret-dir', false);
    } finally {
      process.umask(previous);
    }
    // As a kill -9 leaves it: the path free, a hidden 0600 temporary beside it, which the next write beside it removes.
    expect(existsSync(path)).toBe(false);
    const [temporary] = readdirSync(dir);
    expect(temporary).toMatch(/^\.wh_1\.secret\.whsvc-\d+-[0-9a-z]+\.tmp$/);
    expect(modeOf(join(dir, temporary!))).toBe(0o600);
    const reserved = ReservedFile.reserve(join(dir, 'wh_2.secret'), '--secret-dir', false);
    reserved.write('whsec_two\n');
    expect(readFileSync(join(dir, 'wh_2.secret'), 'utf8')).toBe('whsec_two\n');
    expect(modeOf(join(dir, 'wh_2.secret'))).toBe(0o600);
  });

  it('a file made at the path while it was reserved is never overwritten without --force: the write fails, naming the path', () => {
    const path = join(dir, 'whsec.txt');
    const reserved = ReservedFile.reserve(path, '--secret-file', false);
    writeFileSync(path, 'made meanwhile\n');
    const error = refusal(() => reserved.write('whsec_new\n'));
    expect(error).toMatchObject({ refused: false, message: `cannot write to ${path}: a file was made there meanwhile` });
    expect(readFileSync(path, 'utf8')).toBe('made meanwhile\n');
    expect(readdirSync(dir)).toEqual(['whsec.txt']);
  });

  it('a discarded reservation leaves the path as it was, and nothing beside it', () => {
    const created = join(dir, 'new.txt');
    ReservedFile.reserve(created, '--secret-file', false).discard();
    expect(existsSync(created)).toBe(false);
    const forced = join(dir, 'kept.txt');
    writeFileSync(forced, 'kept\n');
    ReservedFile.reserve(forced, '--secret-file', true).discard();
    expect(readFileSync(forced, 'utf8')).toBe('kept\n');
    expect(readdirSync(dir)).toEqual(['kept.txt']);
  });
});

describe('replaceFile', () => {
  it('writes the whole file 0600 (an older 0644 one is replaced by its own new file)', () => {
    const path = join(dir, 'checkpoint.json');
    writeFileSync(path, '{"old":true}\n', { mode: 0o644 });
    replaceFile(path, '{"new":true}\n', '--checkpoint');
    expect(readFileSync(path, 'utf8')).toBe('{"new":true}\n');
    expect(modeOf(path)).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['checkpoint.json']);
  });

  it('a temporary that cannot be made (its name too long) is a failed write of the file named, not a refusal of the temporary', () => {
    const path = join(dir, `${'c'.repeat(240)}.json`);
    const error = refusal(() => replaceFile(path, '{}\n', '--checkpoint'));
    expect(error.refused).toBe(false);
    expect(error.message).toBe(`cannot write to ${path}: the name is too long`);
    expect(error.message).not.toContain('.tmp');
  });

  it('removes the temporaries a killed writer left, and leaves those of a live one', () => {
    const path = join(dir, 'checkpoint.json');
    // A pid that is surely gone: a process that has ended.
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    const stale = join(dir, `.checkpoint.json.whsvc-${gone}-abc123.tmp`);
    const live = join(dir, `.checkpoint.json.whsvc-${process.ppid}-def456.tmp`);
    const other = join(dir, `.other.json.whsvc-${gone}-abc123.tmp`);
    for (const file of [stale, live, other]) writeFileSync(file, '{"partial":');
    replaceFile(path, '{}\n', '--checkpoint');
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(live)).toBe(true);
    expect(existsSync(other)).toBe(true);
  });
});

describe('readOwnFile (the config and the token cache)', () => {
  it('reads a regular file, and says none when there is none', () => {
    const path = join(dir, 'config.json');
    expect(readOwnFile(path, 'the config file')).toBeUndefined();
    writeFileSync(path, '{"a":1}');
    expect(readOwnFile(path, 'the config file')).toBe('{"a":1}');
  });

  it.each(notRegular)('refuses %s before it is opened, as the writer refuses it', (_kind, make, message) => {
    const path = join(dir, 'target');
    make(path);
    const opened: unknown[] = [];
    const open = vi.spyOn(fs, 'openSync').mockImplementation((...args: Parameters<typeof fs.openSync>) => {
      opened.push(args[0]);
      return realOpenSync(...args);
    });
    syncBuiltinESMExports();
    try {
      expect(refusal(() => readOwnFile(path, 'the config file'))).toMatchObject({ refused: true, message: expect.stringMatching(message) });
    } finally {
      open.mockRestore();
      syncBuiltinESMExports();
    }
    expect(opened).toEqual([]);
  });

  it.runIf(process.geteuid?.() === 0)("refuses another user's file (a journal planted in a shared directory), unread", () => {
    const path = join(dir, '.new.secret.whsvc-rotate');
    writeFileSync(path, '{"whsvc_rotate":1}\n', { mode: 0o644 });
    chownSync(path, 65534, 65534);
    expect(refusal(() => readOwnFile(path, 'the rotate-secret journal'))).toMatchObject({
      refused: true,
      message: `the rotate-secret journal ${path} belongs to another user (uid 65534)`,
    });
  });

  it('refuses a file larger than whsvc ever writes (a device of endless zeros planted there would fill the memory)', () => {
    const path = join(dir, 'tokens.json');
    writeFileSync(path, 'x'.repeat(2048));
    expect(refusal(() => readOwnFile(path, 'the config file', 1024)).message).toBe(`the config file ${path} is larger than whsvc ever writes it (2,048 bytes)`);
  });
});

describe('a record file deleted, then a symlink planted at its path', () => {
  it('is a failed write (not a usage error) while the symlink stands, the file it points to untouched; recorded afresh once it is gone', () => {
    const path = join(dir, 'records.ndjson');
    const reopened: string[] = [];
    const file = new RecordFile(path, (message) => reopened.push(message));
    const record = (id: string) => recordOf({ delivery_id: id });
    file.append(record('dlv_1'));
    rmSync(path);
    writeFileSync(join(dir, 'victim'), 'untouched\n', { mode: 0o644 });
    symlinkSync(join(dir, 'victim'), path);
    const error = refusal(() => file.append(record('dlv_2')));
    expect(error.refused).toBe(false);
    expect(error.message).toBe(`cannot record to ${path}: --record ${path} is a symbolic link, not a regular file`);
    rmSync(path);
    file.append(record('dlv_3'));
    file.close();
    expect(readFileSync(join(dir, 'victim'), 'utf8')).toBe('untouched\n');
    expect(
      readFileSync(path, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line).delivery_id),
    ).toEqual(['dlv_3']);
    expect(reopened).toEqual([`${path} was deleted or moved away while recording: recording to ${path} afresh`]);
  });
});

describe('a lock file that is not a lock whsvc made', () => {
  it.each([
    ['a directory', (path: string) => mkdirSync(path)],
    ['a FIFO', (path: string) => execFileSync('mkfifo', [path])],
  ])('(%s) is said at once, never waited on nor spun over', async (_kind, make) => {
    const target = join(dir, 'checkpoint.json');
    make(`${target}.lock`);
    expect(() => holdFileLock(target)).toThrow(`${target}.lock is not a regular file: not a lock whsvc made; remove it`);
    await expect(withFileLock(target, async () => 'ran')).rejects.toThrow(`cannot lock ${target}`);
  });

  it.runIf(process.geteuid?.() === 0)("(another user's, beside a file in a shared directory) is said, never broken", () => {
    const target = join(dir, '.new.secret.whsvc-rotate');
    writeFileSync(`${target}.lock`, JSON.stringify({ pid: 999_999_999, host: hostname(), nonce: 'theirs' }));
    chownSync(`${target}.lock`, 65534, 65534);
    expect(() => holdFileLock(target)).toThrow(`${target}.lock belongs to another user (uid 65534): not a lock of yours`);
    expect(existsSync(`${target}.lock`)).toBe(true);
  });
});

describe('a lock being linked into place (its name beside it not yet removed: two links)', () => {
  it('is held: never taken for stale', () => {
    const target = join(dir, 'checkpoint.json');
    writeFileSync(`${target}.lock.placing`, JSON.stringify({ pid: process.pid, host: hostname(), nonce: 'placing' }));
    linkSync(`${target}.lock.placing`, `${target}.lock`);
    expect(holdFileLock(target)).toEqual({ heldBy: undefined });
    expect(readFileSync(`${target}.lock`, 'utf8')).toContain('"placing"');
  });
});

describe('openScratchFile', () => {
  it('is 0600, gone from its directory at once, and reads back what was written until it is closed', async () => {
    const scratch = await openScratchFile(dir);
    expect(readdirSync(dir)).toEqual([]);
    expect((await scratch.handle.stat()).mode & 0o777).toBe(0o600);
    await scratch.handle.write('kept', 0, 'utf8');
    const { buffer, bytesRead } = await scratch.handle.read(Buffer.alloc(4), 0, 4, 0);
    expect(buffer.subarray(0, bytesRead).toString()).toBe('kept');
    await scratch.close();
    expect(readdirSync(dir)).toEqual([]);
  });
});
