import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startListen, startWhsvc, type CliResult } from '../helpers/cli.js';
import { recordOf } from '../helpers/delivery.js';
import { startEndlessServer, type EndlessServer } from '../helpers/endless.js';
import { streamBody } from '../helpers/hostile-senders.js';

// What only a whole process shows: a service or a receiver that answers without end (600 MB, 1.5 GB, streamed chunk by
// chunk, never built whole) ends the command with its one line and its exit code, and a sender streaming 1.5 GB at
// listen is answered 413, each within a bounded memory: the peak resident size of the whsvc process itself, which a
// preload reports as it exits (or, for listen while it runs, its /proc status).

const MB = 1_000_000;
/** The bound: under 300 MB for a 600 MB answer or a 1.5 GB one. */
const MOST_RSS = 300 * MB;

/** The peak resident memory (VmHWM) of the test's own child so far, in bytes. */
const peakOf = (pid: number) => Number(/^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

describe('answers and bodies without end', () => {
  let dir: string;
  let preload: string;
  const servers: EndlessServer[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'whsvc-bounded-'));
    preload = join(dir, 'peak.cjs');
    // maxRSS is in KiB: the peak resident size of the process over its whole life.
    writeFileSync(
      preload,
      "process.on('exit', () => require('node:fs').writeFileSync(process.env.PEAK_OUT, String(process.resourceUsage().maxRSS * 1024)));\n",
    );
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs whsvc; its result, and the peak of its resident memory in bytes. */
  async function measured(args: string[], name: string): Promise<CliResult & { peak: number }> {
    const out = join(dir, `${name}.peak`);
    const result = await runCli(args, {
      env: {
        NODE_OPTIONS: `--require ${preload}`,
        PEAK_OUT: out,
        WHSVC_CONFIG_DIR: join(dir, 'config'),
        WHSVC_CLIENT_ID: 'cli_endless',
        WHSVC_CLIENT_SECRET: 'cs_endless',
      },
    });
    return { ...result, peak: Number(readFileSync(out, 'utf8')) };
  }

  async function listOfAPage600MB() {
    const server = await startEndlessServer({ total: 600 * MB, token: true });
    servers.push(server);
    const result = await measured(['webhooks', 'list', '--json', '--base-url', server.url], 'list');
    const message = 'the answer to GET /v1/webhooks is longer than 64 MiB, the most whsvc reads: --max-answer-size (or WHSVC_MAX_ANSWER_SIZE) raises it';
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')).toEqual([
      `whsvc: ${message} (HTTP 200 answer_too_large)`,
      JSON.stringify({ error: { status: 200, code: 'answer_too_large', message } }),
      '',
    ]);
    expect(result.peak).toBeLessThan(MOST_RSS);
    // The rest was never asked for: whsvc hung up.
    expect(server.written()).toBeLessThan(600 * MB);
  }

  async function sendToAnAnswerOf1500MB() {
    const server = await startEndlessServer({ total: 1500 * MB, contentType: 'text/plain' });
    servers.push(server);
    const result = await measured(['send', `${server.url}/hooks`], 'send');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/^answer +200 in \d+ ms$/m);
    expect(result.stdout).toMatch(/^answered +a+… \(truncated to its first 1,024 bytes: the rest was not read\)$/m);
    expect(result.peak).toBeLessThan(MOST_RSS);
    expect(server.written()).toBeLessThan(1500 * MB);
  }

  async function listenUnderABodyOf1500MB() {
    const listen = await startListen(['--secret', 'whsec_listen_bounds_e2e']);
    const pid = listen.child.pid!;
    // Looked at before each MiB sent: a listen that takes the body stops the sender once it is past the bound, not at 4.9 GB.
    const sent = await streamBody(listen.url, 1_500 * MB, { declared: false, goOn: () => peakOf(pid) < MOST_RSS });
    const peak = peakOf(pid);
    expect(peak, `listen's peak: ${Math.round(peak / MB)} MB`).toBeLessThan(MOST_RSS);
    expect(sent.status).toBe(413);
    expect(await listen.stop()).toBe(130);
    expect(listen.stderr()).toContain('whsvc listen: 1 request body over 1 MiB refused (413)\n');
  }

  /** replay - keeps what is piped in on disk, not in memory: 600 records of 1 MB each, piped as they are made. */
  async function replayOf600MBPiped() {
    const out = join(dir, 'replay.peak');
    const to = 'http://127.0.0.1:9/app';
    const replay = startWhsvc(['replay', '-', '--to', to, '--dry-run'], { env: { NODE_OPTIONS: `--require ${preload}`, PEAK_OUT: out } });
    const line = Buffer.from(`${JSON.stringify(recordOf({ body: 'x'.repeat(MB) }))}\n`);
    const lines = function* () {
      for (let i = 0; i < 600; i++) yield line;
    };
    // A replay that ends early closes its stdin: its exit code and stderr below say why.
    await pipeline(Readable.from(lines()), replay.child.stdin!).catch(() => undefined);
    expect(await replay.exit, replay.stderr()).toBe(0);
    expect(replay.stderr()).toBe(`whsvc: 600 deliveries of stdin would be sent to ${to}\n`);
    const peak = Number(readFileSync(out, 'utf8'));
    // Well under what was piped in: kept in memory, the 600 records alone would be 600 MB. What it reaches, about 230 MB
    // alone and more beside the other three, is Node's start (some 70 MB) and the garbage of the lines read, which V8
    // collects late; it does not grow with the input (300 MB piped: about 200 MB).
    expect(peak, `replay's peak: ${Math.round(peak / MB)} MB`).toBeLessThan(450 * MB);
  }

  it('webhooks list --json against a 600 MB page: one line naming the limit and the flag, exit 1; send to a receiver answering 1.5 GB: its 200 stands (exit 0), the cut is said; listen sent a 1.5 GB body: 413; each process under 300 MB all along; replay - of 600 MB piped in, under 450 MB', async () => {
    // Four processes of their own, each measured alone: run side by side. listen's peak is read in /proc (Linux).
    await Promise.all([
      listOfAPage600MB(),
      sendToAnAnswerOf1500MB(),
      ...(existsSync('/proc/self/status') ? [listenUnderABodyOf1500MB()] : []),
      replayOf600MBPiped(),
    ]);
  });
});
