import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebhook, jsonLines, sandboxEnv, trigger } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { canMakeDeviceNodes, canMountTmpfs, fullDisk } from '../helpers/bad-files.js';
import { postDelivery, signatureOf } from '../helpers/delivery.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

// Every file whsvc writes (PRODUCT.md "Files whsvc writes"), tried as an attacker and a bad day would, whsvc run
// in-process: nothing outside what the user named is touched, nothing acknowledged is lost, every failure one line.
// The device nodes and full disks are the test's own (a private mknod, a tmpfs it mounts), the same to whsvc in this
// process as in one of its own. That a record is kept before the answer, even under kill -9, is test/e2e/files.test.ts's.
let sandbox: SandboxInProcess;
let receiver: Receiver;
let workDir: string;

beforeAll(async () => {
  [sandbox, receiver] = await Promise.all([startSandboxInProcess(['--quiet']), startReceiver()]);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-files-'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), receiver?.close()]);
  rmSync(workDir, { recursive: true, force: true });
});

const listen = (args: string[]) => startListenInProcess(args);
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));
const modeOf = (path: string) => statSync(path).mode & 0o777;

async function webhookCount(): Promise<number> {
  const listed = await cli(['webhooks', 'list', '--all', '--json']);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout).data.length;
}

/** A victim file (0644, known content) and a symlink to it planted where the user's file is named. */
function plantedSymlink(name: string): { link: string; victim: string } {
  const victim = join(workDir, `${name}-victim`);
  writeFileSync(victim, 'untouched\n', { mode: 0o644 });
  const link = join(workDir, name);
  symlinkSync(victim, link);
  return { link, victim };
}

function expectUntouched(victim: string): void {
  expect(readFileSync(victim, 'utf8')).toBe('untouched\n');
  expect(modeOf(victim)).toBe(0o644);
}

describe('a symlink planted where the file is named: refused, exit 2, the file it points to untouched', () => {
  it('webhooks create --secret-file (with --force too): no webhook is made', async () => {
    const before = await webhookCount();
    const { link, victim } = plantedSymlink('secret-link');
    for (const force of [[], ['--force']]) {
      const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/x`, '--events', 'invoice.paid', '--secret-file', link, ...force]);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.split('\n')[0]).toBe(`whsvc: --secret-file ${link} is a symbolic link, not a regular file`);
      expect(result.stdout + result.stderr).not.toMatch(/whsec_/);
    }
    expectUntouched(victim);
    expect(await webhookCount()).toBe(before);
  });

  it('listen --record', async () => {
    const { link, victim } = plantedSymlink('listen-link');
    const result = await runInProcess(['listen', '--port', '0', '--record', link]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`whsvc: --record ${link} is a symbolic link, not a regular file\nhint: give the path of a regular file (or of one to create)\n`);
    expectUntouched(victim);
  });

  it('deliveries tail --record and --checkpoint, deliveries diagnose --record', async () => {
    const { link, victim } = plantedSymlink('tail-link');
    const webhookId = (await createWebhook(cli, `${receiver.url}/tail`)).id;
    const checkpoint = join(workDir, 'tail-link-checkpoint.json');
    for (const args of [
      ['deliveries', 'tail', '--webhook', webhookId, '--record', link, '--timeout', '5'],
      ['deliveries', 'tail', '--webhook', webhookId, '--checkpoint', link, '--timeout', '5'],
      ['deliveries', 'tail', '--webhook', webhookId, '--record', join(workDir, 'tail.ndjson'), '--checkpoint', link, '--timeout', '5'],
    ]) {
      const result = await cli(args);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^whsvc: --(record|checkpoint) ${link} is a symbolic link, not a regular file$`));
    }
    expect(existsSync(checkpoint)).toBe(false);
    await trigger(cli);
    await receiver.waitFor(1, 20_000, '/tail');
    const listed = JSON.parse((await cli(['deliveries', 'list', webhookId, '--json'])).stdout);
    const diagnosed = await cli(['deliveries', 'diagnose', listed.data[0].id, '--record', link]);
    expect(diagnosed.code, diagnosed.stderr).toBe(2);
    expect(diagnosed.stderr.split('\n')[0]).toBe(`whsvc: --record ${link} is a symbolic link, not a regular file`);
    // Refused before any request: an id that does not exist is not looked up first.
    const unknown = await cli(['deliveries', 'diagnose', 'dlv_00000000000000000000000000', '--record', link]);
    expect(unknown.code, unknown.stderr).toBe(2);
    expectUntouched(victim);
  });
});

describe('what is not a regular file: refused before anything happens, its mode unchanged', () => {
  it('a FIFO as --record: refused at once, never waited on', async () => {
    const fifo = join(workDir, 'records.fifo');
    execFileSync('mkfifo', [fifo]);
    const result = await runInProcess(['listen', '--port', '0', '--record', fifo]);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(`whsvc: --record ${fifo} is a FIFO, not a regular file`);
  });

  // A private device node in the test's directory, never the machine's own /dev.
  it.runIf(canMakeDeviceNodes())('a device node as --record or as --secret-file --force: its mode stays as it was', async () => {
    const device = join(workDir, 'null');
    execFileSync('mknod', ['-m', '0666', device, 'c', '1', '3']);
    const before = await webhookCount();
    const listen = await runInProcess(['listen', '--port', '0', '--record', device]);
    expect(listen.code).toBe(2);
    expect(listen.stderr.split('\n')[0]).toBe(`whsvc: --record ${device} is a device, not a regular file`);
    const create = await cli(['webhooks', 'create', '--url', `${receiver.url}/dev`, '--events', 'invoice.paid', '--secret-file', device, '--force']);
    expect(create.code).toBe(2);
    expect(create.stderr.split('\n')[0]).toBe(`whsvc: --secret-file ${device} is a device, not a regular file`);
    expect(modeOf(device)).toBe(0o666);
    expect(await webhookCount()).toBe(before);
  });

  it('a FIFO nobody writes to, as a file whsvc reads (--secret-file, --payload-file): refused at once, never waited on', async () => {
    const fifo = join(workDir, 'reads.fifo');
    execFileSync('mkfifo', [fifo]);
    const signature = `sha256=${'a'.repeat(64)}`;
    for (const args of [
      ['verify', '--signature', signature, '--secret-file', fifo, '--payload-file', '-'],
      ['verify', '--signature', signature, '--secret', 'whsec_x', '--payload-file', fifo],
      ['listen', '--port', '0', '--secret-file', fifo],
      ['replay', join(workDir, 'none.ndjson'), '--to', receiver.url, '--secret-file', fifo],
    ]) {
      const result = await runInProcess(args, { input: '{}' });
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(new RegExp(`^whsvc: --(secret|payload)-file ${fifo} is not a regular file$`));
    }
    // replay's FILE: opening a FIFO with no writer once held replay past two Ctrl-C.
    const replay = await runInProcess(['replay', fifo, '--to', receiver.url]);
    expect(replay.code, replay.stderr).toBe(2);
    expect(replay.stderr.split('\n')[0]).toBe(`whsvc: ${fifo} is a FIFO, not a regular file`);
  });

  it('a directory as --record, --checkpoint or --secret-file', async () => {
    const directory = mkdtempSync(join(workDir, 'dir-'));
    for (const args of [
      ['listen', '--port', '0', '--record', directory],
      ['webhooks', 'create', '--url', `${receiver.url}/d`, '--events', 'invoice.paid', '--secret-file', directory, '--force'],
      ['deliveries', 'tail', '--checkpoint', directory, '--timeout', '5'],
    ]) {
      const result = await cli(args);
      expect(result.code, `${args.join(' ')}: ${result.stderr}`).toBe(2);
      expect(result.stderr.split('\n')[0]).toMatch(/ is a directory, not a regular file$/);
    }
  });
});

describe('listen keeps what it records', () => {
  it('a body starting with a byte-order mark is recorded with it, and replays with a signature that still verifies', async () => {
    const secret = 'whsec_bom';
    const file = join(workDir, 'bom.ndjson');
    const listener = await listen(['--secret', secret, '--record', file, '--count', '1', '--timeout', '30']);
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"event":"invoice.paid","id":"inv_bom"}')]);
    const answer = await fetch(`${listener.url}/bom`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-service-signature': signatureOf(secret, bytes), 'x-service-delivery-id': 'dlv_bom' },
      body: bytes,
    });
    expect(answer.status).toBe(200);
    expect(await listener.exit).toBe(0);
    receiver.received.length = 0;
    const replayed = await runInProcess(['replay', file, '--to', `${receiver.url}/bom`]);
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(receiver.received[0]!.bytes.equals(bytes)).toBe(true);
    expect(receiver.received[0]!.headers['x-service-signature']).toBe(signatureOf(secret, bytes));
  });

  it('a delivery whose payload merely mentions client_secret is recorded; a token request is not', async () => {
    const secret = 'whsec_mentions';
    const file = join(workDir, 'mentions.ndjson');
    const listener = await listen(['--secret', secret, '--record', file]);
    const mentions = JSON.stringify({ id: 'inv_2', event: 'invoice.paid', data: { note: 'rotate the client_secret monthly' } });
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_mentions', { body: mentions })).status).toBe(200);
    const token = await fetch(`${listener.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=client_credentials&client_id=a&client_secret=s3cr3t',
    });
    expect(token.status).toBe(400);
    // The marker that must come after: once it is recorded, everything before it was decided.
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_marker')).status).toBe(200);
    // Exit 1: it refused a request (the token request).
    expect(await listener.stop('SIGTERM')).toBe(1);
    const ids = jsonLines(readFileSync(file, 'utf8')).map((line) => line.delivery_id);
    expect(ids).toEqual(['dlv_mentions', 'dlv_marker']);
    expect(readFileSync(file, 'utf8')).not.toContain('s3cr3t');
  });
});

describe('a record file that goes away while listen records', () => {
  it('deleted, or moved away (a rotation): the next delivery is recorded afresh at the path, said once, never acknowledged into a file no one sees', async () => {
    const secret = 'whsec_rotated';
    const file = join(workDir, 'rotated.ndjson');
    const listener = await listen(['--secret', secret, '--record', file]);
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_before')).status).toBe(200);
    renameSync(file, `${file}.1`);
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_after_move')).status).toBe(200);
    rmSync(file);
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_after_delete')).status).toBe(200);
    expect(await listener.stop('SIGTERM')).toBe(0);
    const ids = (path: string) => jsonLines(readFileSync(path, 'utf8')).map((line) => line.delivery_id);
    expect(ids(`${file}.1`)).toEqual(['dlv_before']);
    expect(ids(file)).toEqual(['dlv_after_delete']);
    expect(modeOf(file)).toBe(0o600);
    expect(listener.stderr().match(/was deleted or moved away while recording: recording to \S+ afresh/g)).toHaveLength(2);
  });
});

describe('listen --json prints what a record keeps, never a credential', () => {
  it("credential headers and a token request's body are left out of its lines", async () => {
    const listener = await listen(['--json']);
    await fetch(`${listener.url}/v1/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic dXNlcjpodW50ZXIy', cookie: 'session=s3ss10n' },
      body: 'grant_type=client_credentials&client%5Fsecret=TOPSECRET',
    });
    await listener.until(() => listener.stdout().includes('"received_at"'), 'its line of the request');
    expect(await listener.stop('SIGTERM')).toBe(0);
    const line = listener.lines().find((entry) => 'received_at' in entry);
    expect(line.body).toBeNull();
    expect(Object.keys(line.headers)).not.toContain('authorization');
    expect(Object.keys(line.headers)).not.toContain('cookie');
    expect(listener.stdout()).not.toMatch(/TOPSECRET|dXNlcjpodW50ZXIy|s3ss10n/);
  });
});

describe('listen --record keeps no credential header, by any name a credential goes by', () => {
  it('X-Api-Key, Api-Key, X-Auth-Token, X-Access-Token: left out of the record and of --json, the delivery recorded', async () => {
    const secret = 'whsec_keyed';
    const file = join(workDir, 'keyed.ndjson');
    const listener = await listen(['--secret', secret, '--record', file, '--json']);
    const credentials = {
      'X-Api-Key': 'apikey-v4lue',
      'Api-Key': 'bare-k3y-v4lue',
      'X-Auth-Token': 'auth-t0ken-v4lue',
      'X-Access-Token': 'access-t0ken-v4lue',
    };
    expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_keyed', { headers: { ...credentials, 'x-trace': 'kept' } })).status).toBe(200);
    expect(await listener.stop('SIGTERM')).toBe(0);
    const [record] = jsonLines(readFileSync(file, 'utf8'));
    expect(record.delivery_id).toBe('dlv_keyed');
    expect(record.headers).toMatchObject({ 'x-trace': 'kept', 'x-service-signature': expect.stringMatching(/^sha256=/) });
    for (const name of Object.keys(credentials)) expect(Object.keys(record.headers)).not.toContain(name.toLowerCase());
    expect(readFileSync(file, 'utf8')).not.toMatch(/v4lue/);
    expect(listener.stdout()).not.toMatch(/v4lue/);
  });
});

describe.runIf(canMountTmpfs())('a full disk (a private tmpfs, filled)', () => {
  it('webhooks create --secret-file: the webhook is deleted again and the one line says so', async () => {
    const disk = fullDisk(workDir);
    try {
      const before = await webhookCount();
      const path = join(disk.dir, 'whsec.txt');
      const result = await cli(['webhooks', 'create', '--url', `${receiver.url}/full`, '--events', 'invoice.paid', '--secret-file', path]);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(
        new RegExp(
          `^whsvc: cannot write the signing secret to ${path}: no space left on the device; webhook wh_\\w+ was deleted again, so nothing was created\\nhint: free some space or choose another path`,
        ),
      );
      expect(result.stderr).not.toMatch(/whsec_|unexpected error/);
      expect(existsSync(path)).toBe(false);
      expect(await webhookCount()).toBe(before);
    } finally {
      disk.unmount();
    }
  });

  it('listen --record answers 503 for what it cannot keep, says so once, leaves no cut line, and records again once there is room', async () => {
    const disk = fullDisk(workDir, 256, 8192);
    try {
      const secret = 'whsec_full';
      const file = join(disk.dir, 'deliveries.ndjson');
      const listener = await listen(['--secret', secret, '--record', file]);
      expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_fits')).status).toBe(200);
      // Larger than the room left: part of it is written before the disk is full, and cut back.
      const big = JSON.stringify({ id: 'inv_big', event: 'invoice.paid', data: 'y'.repeat(64 * 1024) });
      const refused = await postDelivery(`${listener.url}/hooks`, secret, 'dlv_big', { body: big, attempt: 1 });
      expect(refused.status).toBe(503);
      expect(await refused.text()).toBe('this delivery could not be recorded\n');
      // The same request again (curl --retry sends it so): still not kept, still 503, never taken for a replay.
      expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_big', { body: big, attempt: 1 })).status).toBe(503);
      const lines = () => readFileSync(file, 'utf8');
      expect(lines()).toMatch(/^\{[^\n]*"dlv_fits"[^\n]*\}\n$/);
      disk.free();
      // Once there is room again, the same request is kept and taken.
      expect((await postDelivery(`${listener.url}/hooks`, secret, 'dlv_big', { body: big, attempt: 1 })).status).toBe(200);
      expect(await listener.stop('SIGTERM')).toBe(1);
      const stderr = listener.stderr();
      expect(stderr.match(/no space left on the device/g)).toHaveLength(1);
      expect(stderr).toContain(`whsvc listen: cannot write to ${file}: no space left on the device; answering 503 so the sender tries again later\n`);
      expect(stderr).toContain(`whsvc listen: recording to ${file} again\n`);
      expect(stderr).toContain('whsvc listen: 2 deliveries not recorded, answered 503 for the sender to try again\n');
      expect(stderr).not.toMatch(/Error:| {4}at /);
      const records = jsonLines(lines());
      expect(records.map((record) => record.delivery_id)).toEqual(['dlv_fits', 'dlv_big']);
      // The file replay reads is whole: every line of it is sent.
      receiver.received.length = 0;
      const replayed = await runInProcess(['replay', file, '--to', `${receiver.url}/replayed`]);
      expect(replayed.code, replayed.stderr).toBe(0);
      expect(receiver.received).toHaveLength(2);
    } finally {
      disk.unmount();
    }
  });

  it('deliveries tail --record: one line naming the file, exit 1, never "unexpected error"', async () => {
    const disk = fullDisk(workDir);
    try {
      const webhookId = (await createWebhook(cli, `${receiver.url}/tail-full`)).id;
      await trigger(cli);
      const file = join(disk.dir, 'tail.ndjson');
      const result = await cli(['deliveries', 'tail', '--webhook', webhookId, '--since', '1h', '--record', file, '--timeout', '20']);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(`whsvc: cannot write to ${file}: no space left on the device\nhint: free some space, or choose another path\n`);
      expect(result.stderr).not.toMatch(/unexpected error| {4}at /);
      expect(readFileSync(file, 'utf8')).toBe('');
    } finally {
      disk.unmount();
    }
  });
});

describe('deliveries tail --checkpoint', () => {
  it('is written 0600, and the temporary a killed write left beside it is removed', async () => {
    const webhookId = (await createWebhook(cli, `${receiver.url}/cp`)).id;
    const dir = mkdtempSync(join(workDir, 'cp-'));
    const checkpoint = join(dir, 'tail.json');
    const gone = Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }));
    const leftover = join(dir, `.tail.json.whsvc-${gone}-k1ll3d.tmp`);
    writeFileSync(leftover, '{"whsvc_tail_checkpoint":1,', { mode: 0o600 });
    await trigger(cli);
    const result = await cli(['deliveries', 'tail', '--webhook', webhookId, '--since', '1h', '--count', '1', '--checkpoint', checkpoint, '--timeout', '20']);
    expect(result.code, result.stderr).toBe(0);
    expect(modeOf(checkpoint)).toBe(0o600);
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('--record with --checkpoint: a run killed after recording a delivery but before saving the checkpoint does not record it again', async () => {
    const webhookId = (await createWebhook(cli, `${receiver.url}/window`)).id;
    const file = join(workDir, 'window.ndjson');
    const checkpoint = join(workDir, 'window.json');
    const tail = (count: number) =>
      cli([
        'deliveries',
        'tail',
        '--webhook',
        webhookId,
        '--since',
        '1h',
        '--count',
        String(count),
        '--record',
        file,
        '--checkpoint',
        checkpoint,
        '--timeout',
        '30',
      ]);
    await trigger(cli);
    expect((await tail(1)).code).toBe(0);
    // The checkpoint as it stood before the second delivery was recorded: what a kill between that record and the
    // save after it leaves on disk.
    copyFileSync(checkpoint, `${checkpoint}.before`);
    await trigger(cli);
    expect((await tail(1)).code).toBe(0);
    copyFileSync(`${checkpoint}.before`, checkpoint);
    await trigger(cli);
    const third = await tail(2);
    expect(third.code, third.stderr).toBe(0);
    const ids = jsonLines(readFileSync(file, 'utf8')).map((line) => line.delivery_id);
    expect(ids).toHaveLength(3);
    expect(new Set(ids).size).toBe(3);
  });
});
