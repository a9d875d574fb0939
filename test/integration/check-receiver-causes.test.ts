import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { suspectsOfRefusal } from '../../src/commands/check-receiver/causes.js';
import { runInProcess } from '../helpers/in-process.js';
import { closeLeftoverPythonReceivers, type PythonMistake, startPythonReceiver } from '../helpers/python-receiver.js';

// check-receiver in-process against receivers with one of the usual mistakes planted, most of them Python's standard
// library (test/fixtures/python-receiver.py): the cause is tested before it is named, said once, and the checks it
// explains point at it.

let dir: string;
// A secret as the service makes one: whsec_ and 24 random bytes in base64url; its file ends in a newline.
const SECRET = `whsec_${randomBytes(24).toString('base64url')}`;
const secretFile = () => join(dir, 'whsec.txt');

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-causes-'));
  writeFileSync(secretFile(), `${SECRET}\n`);
  writeFileSync(join(dir, 'other.txt'), `whsec_${randomBytes(24).toString('base64url')}\n`);
});

afterAll(async () => {
  await closeLeftoverPythonReceivers();
  rmSync(dir, { recursive: true, force: true });
});

interface CheckJson {
  number: number;
  result: string;
  cause: string | null;
  fix: string | null;
  explained_by: number | null;
  cause_probes: Array<{ cause: string | null; status: number }>;
}

/** check-receiver against `url`, with --json and without: the document, the human report, and the checks that failed. */
async function checkReceiver(url: string) {
  const json = await runInProcess(['check-receiver', url, '--secret-file', secretFile(), '--event', 'invoice.paid', '--json']);
  const human = await runInProcess(['check-receiver', url, '--secret-file', secretFile(), '--event', 'invoice.paid']);
  const document = JSON.parse(json.stdout);
  const checks = document.checks as CheckJson[];
  return {
    code: json.code,
    document,
    human: human.stdout,
    stderr: human.stderr,
    failed: checks.filter((c) => c.result === 'fail').map((c) => c.number),
    check: (n: number) => checks[n - 1]!,
  };
}

/** Starts the Python receiver with `mistake`, runs check-receiver against it, and closes it. */
async function againstPython(mistake: PythonMistake, file = secretFile()) {
  const receiver = await startPythonReceiver(file, mistake);
  try {
    return await checkReceiver(receiver.url);
  } finally {
    await receiver.close();
  }
}

/** The refusals the cause of check 1 explains: each says `see 1`, and none names a cause or a fix of its own. */
function expectExplainedByOne(result: Awaited<ReturnType<typeof checkReceiver>>) {
  expect(result.failed).toEqual([1, 2, 7, 9]);
  for (const n of [2, 7, 9]) {
    expect(result.check(n), `check ${n}`).toMatchObject({ explained_by: 1, fix: null });
    expect(result.check(n).cause).toMatch(/^see 1: /);
  }
}

describe('check-receiver names the cause of refused deliveries, tested by a delivery it predicts', () => {
  it("a Python receiver verifying json.dumps(json.loads(raw)): re-serialization by json.dumps's defaults, the raw-bytes fix, no word of another secret", async () => {
    const result = await againstPython('json.dumps');
    expect(result.code).toBe(1);
    expect(result.document.cause_found).toMatchObject({ check: 1, cause: 'python_json_dumps' });
    expect(result.check(1).cause).toContain('json.dumps(…) with its defaults (", " and ": ")');
    expect(result.check(1).fix).toContain('self.rfile.read(length), length its Content-Length');
    expect(result.check(1).fix).toContain("Buffer.concat of the request's chunks");
    // The control, refused as the valid deliveries were; then the first suspect, taken.
    expect(result.check(1).cause_probes).toEqual([
      expect.objectContaining({ cause: null, status: 401 }),
      expect.objectContaining({ cause: 'python_json_dumps', status: 200 }),
    ]);
    expectExplainedByOne(result);
    const causes = result.document.checks.flatMap((c: CheckJson) => [c.cause, c.fix]).join('\n');
    expect(causes + JSON.stringify(result.document.cause_found)).not.toMatch(/another secret|holds another/);
    expect(result.human.split('\n').filter((line) => /^ {9}/.test(line) && /another secret/.test(line))).toEqual([]);
    // Said once, in the check where it was found, with its fix; the others point at it.
    expect(result.human.split('verifies the JSON written again by json.dumps')).toHaveLength(2);
    expect(result.human).toMatch(/^ +cause \(tested\): it verifies the JSON written again by json\.dumps/m);
    expect(result.human).toMatch(/^ +likely cause: see 1: it verifies JSON re-serialized by json\.dumps/m);
    // The control, and the suspects of this secret (one more with - or _ in it: two ways to base64-decode it).
    const suspects = suspectsOfRefusal({ secret: SECRET, keyName: '', event: 'invoice.paid', body: '{}', header: '' }).length;
    expect(result.stderr).toContain(`testing what made 1 fail: up to ${suspects + 1} deliveries, one signed with a secret made up for it, then each`);
  });

  it('a Python receiver keyed with the secret file read as it is, newline and all: named so, with the key convention', async () => {
    const result = await againstPython('newline');
    expect(result.document.cause_found).toMatchObject({ check: 1, cause: 'key_with_newline' });
    expect(result.check(1).cause).toContain(`the secret in ${secretFile()} and the newline that ends the file`);
    expect(result.check(1).fix).toContain('no trailing newline (.trim() in Node, .strip() in Python');
    expect(result.check(1).cause_probes.map((p) => p.cause)).toEqual([null, 'python_json_dumps', 'key_with_newline']);
    expectExplainedByOne(result);
  });

  it('a Python receiver keyed with the secret base64-decoded after whsec_: named so', async () => {
    const result = await againstPython('decoded');
    expect(result.document.cause_found).toMatchObject({ check: 1, cause: 'key_base64_decoded' });
    expect(result.check(1).cause).toContain('base64-decoded after whsec_');
    expect(result.check(1).fix).toContain('never base64-decoded');
    expectExplainedByOne(result);
  });

  it("a Python receiver keyed with base64.b64decode, which drops a secret's - and _: named as that decoding, not the urlsafe one", async () => {
    // A secret as the service makes them, with - and _ in it: urlsafe and standard base64 read it apart.
    const file = join(dir, 'dashes.txt');
    writeFileSync(file, 'whsec_q0tzH3rUSjB7-fo_2nlV4cW8mJ1pa6Ye\n');
    const receiver = await startPythonReceiver(file, 'b64decode');
    try {
      const json = await runInProcess(['check-receiver', receiver.url, '--secret-file', file, '--event', 'invoice.paid', '--json']);
      const document = JSON.parse(json.stdout);
      expect(document.cause_found).toMatchObject({ check: 1, cause: 'key_base64_standard' });
      expect(document.checks[0].cause).toContain("standard, its - and _ dropped: Python's b64decode");
      expect(document.checks[0].cause_probes.map((p: { cause: string | null }) => p.cause)).toEqual([
        null,
        'python_json_dumps',
        'key_with_newline',
        'key_base64_decoded',
        'key_base64_standard',
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('a Python receiver that truly holds another secret: every suspect and the control refused alike, said as a likely cause', async () => {
    const result = await againstPython(undefined, join(dir, 'other.txt'));
    // Nothing tested it: refused alike, another secret and something in front of the receiver look the same.
    expect(result.document.cause_found).toBeNull();
    expect(result.check(1).cause).toContain(`it refuses every request alike: another secret than the one in ${secretFile()}, or something in front of it`);
    const tried = result.check(1).cause_probes;
    expect(tried[0]).toMatchObject({ cause: null, status: 401 });
    expect(tried.length).toBeGreaterThanOrEqual(11);
    expect(tried.every((p) => p.status === 401)).toBe(true);
    expectExplainedByOne(result);
    expect(result.human).toMatch(/^ +likely cause: it refuses every request alike/m);
    expect(result.human).not.toContain('cause (tested)');
    // The whole sentence once; the checks it explains name it in a few words.
    expect(result.human.split(`it took none of ${tried.length - 1} signed`)).toHaveLength(2);
    // Deliveries signed with keys made from the secret: never the secret itself, nor the key decoded from it.
    const decoded = Buffer.from(SECRET.slice('whsec_'.length), 'base64url');
    for (const secret of [SECRET, decoded.toString('hex'), decoded.toString('base64')]) {
      expect(JSON.stringify(result.document) + result.human + result.stderr).not.toContain(secret);
    }
  });

  it('a Python receiver done right passes all 9 with no suspect sent, and the verdict says what it could not see', async () => {
    const result = await againstPython(undefined);
    expect(result.code, result.human).toBe(0);
    expect(result.document.cause_found).toBeNull();
    expect(result.document.checks.flatMap((c: CheckJson) => c.cause_probes)).toEqual([]);
    expect(result.human).toMatch(/^pass {2}7 .*a second effect of the repeat cannot be seen over HTTP: drop repeats by X-Service-Delivery-Id/m);
    expect(result.human.trimEnd().split('\n').at(-1)).toBe(
      'all 9 checks passed: it takes valid deliveries by their raw bytes, refuses forged ones, answers a repeat 2xx and answers within 10 s; whether it acts twice on a repeat cannot be seen over HTTP (see 7)',
    );
  });
});
