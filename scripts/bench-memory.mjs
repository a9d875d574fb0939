// Peak memory of an in-memory sandbox over many deliveries: the sandbox's
// resident set (VmHWM, the kernel's high-water mark) after BENCH_MEMORY_EVENTS
// events (default 100,000; 0 skips these runs) delivered to a receiver that
// answers 200 at once, with the default cap on the deliveries kept; the same
// cap over a fifth as many events; and without a cap, for contrast. Then the
// budget's soak: BENCH_SOAK_EVENTS events (default 200,000; 0 skips it) at a
// steady BENCH_SOAK_RATE a second (default 4,000), the sandbox's resident set
// sampled every second, its peak held against the budget (256 MB after
// 200,000 events, docs/benchmarks.md). BENCH_SOAK_DATA_DIR=1 runs the soak
// with --data-dir (a fresh temp dir, every delivery kept, as --data-dir does
// by default) instead of in memory.
//
//   node scripts/bench-memory.mjs        (uses the dist/ already built)
//
// BENCH_SANDBOX_NODE_ARGS gives the sandbox extra node flags, and
// BENCH_SANDBOX_STDOUT a file its stdout is appended to (what --trace-gc-nvp
// prints, say), as in bench.mjs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { benchNodeArgs, benchStdout, startSandbox } from './sandbox-process.mjs';

const EVENTS = Number(process.env.BENCH_MEMORY_EVENTS ?? 100_000);
const SOAK_EVENTS = Number(process.env.BENCH_SOAK_EVENTS ?? 200_000);
/** The budget a user meets: the sandbox's peak resident set after 200,000 events (docs/benchmarks.md). */
const BUDGET_MB = 256;
const SOAK_RATE = Number(process.env.BENCH_SOAK_RATE ?? 4_000);
const SOAK_DATA_DIR = Boolean(process.env.BENCH_SOAK_DATA_DIR);
const IN_FLIGHT = 64;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const STALL_MS = 30_000;

const kib = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;
/** CPU ms (user + system) a process has used so far, from /proc (10 ms ticks). */
const cpuMs = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
};

/**
 * Delivers `events` events through a fresh in-memory sandbox, IN_FLIGHT triggers at a time; with `rate`, no
 * faster than that many a second, and the sandbox's resident set sampled every second meanwhile.
 */
async function run(label, events, extraArgs, { rate } = {}) {
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const onStdout = benchStdout();
  const { child: sandbox, info, stderr } = await startSandbox(['--quiet', '--max-attempts', '1', ...extraArgs], { nodeArgs: benchNodeArgs(), onStdout });
  const pool = new Pool(info.base_url, { connections: IN_FLIGHT });
  const call = async (method, path, body, token) => {
    const res = await pool.request({
      method,
      path,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text);
  };
  const { access_token } = await call('POST', '/v1/oauth/token', {
    grant_type: 'client_credentials',
    client_id: info.client_id,
    client_secret: info.client_secret,
  });
  await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${receiver.address().port}/hook`, events: ['invoice.paid'] }, access_token);
  // A sandbox that dies mid-run ends the run with its stderr, rather than leaving the bench waiting or sampling nothing.
  const died = new Promise((_, reject) =>
    sandbox.once('exit', (code, signal) => reject(new Error(`the sandbox exited (${signal ?? code}) mid-run:\n${stderr().slice(-4000)}`))),
  );
  died.catch(() => {});
  const baseline = kib(sandbox.pid, 'VmRSS');
  const cpuBefore = cpuMs(sandbox.pid);
  const started = Date.now();
  const samples = [];
  const sample = () => ({ seconds: (Date.now() - started) / 1000, received, rss: kib(sandbox.pid, 'VmRSS'), peak: kib(sandbox.pid, 'VmHWM') });
  const sampler = rate
    ? setInterval(() => {
        if (sandbox.exitCode !== null || sandbox.signalCode !== null) return;
        samples.push(sample());
        if (process.stderr.isTTY)
          process.stderr.write(`\rsoak: ${received.toLocaleString('en')} of ${events.toLocaleString('en')} events, RSS ${mb(samples.at(-1).rss)}  `);
      }, 1000)
    : undefined;
  let seconds;
  let peak;
  let cpu;
  try {
    let next = 0;
    const triggering = Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < events) {
          const index = next++;
          // A steady stream: event i is not triggered before i / rate seconds into the run.
          const due = rate ? started + (index * 1000) / rate - Date.now() : 0;
          if (due > 0) await sleep(due);
          await call('POST', '/_sandbox/events', { type: 'invoice.paid' });
        }
      }),
    );
    await Promise.race([triggering, died]);
    // Every delivery received, or the run gives up once nothing new has come for STALL_MS.
    for (let seen = received, quietSince = Date.now(); received < events; await Promise.race([sleep(100), died])) {
      if (received !== seen) [seen, quietSince] = [received, Date.now()];
      if (Date.now() - quietSince > STALL_MS) throw new Error(`the receiver got ${received} of ${events} deliveries, and nothing new for ${STALL_MS / 1000} s`);
    }
    seconds = (Date.now() - started) / 1000;
    peak = kib(sandbox.pid, 'VmHWM');
    cpu = cpuMs(sandbox.pid) - cpuBefore;
    samples.push(sample());
  } catch (error) {
    // A trigger refused because the sandbox died says less than the sandbox's own end.
    throw await Promise.race([died, sleep(1000)]).then(
      () => error,
      (death) => death,
    );
  } finally {
    clearInterval(sampler);
    if (sampler && process.stderr.isTTY) process.stderr.write('\n');
    await pool.close();
    sandbox.kill('SIGTERM');
    receiver.close();
  }
  const dropped = /the oldest are dropped/.test(stderr());
  return { label, events, baseline, peak, seconds, cpu, dropped, samples };
}

// A run that fails says why in one message, without a stack: what the sandbox said is in it.
for (const event of ['uncaughtException', 'unhandledRejection'])
  process.on(event, (error) => {
    console.error(`bench-memory: ${error instanceof Error ? error.message : error}`);
    process.exit(1);
  });

const perEvent = (r) => `${Math.round((1000 * r.cpu) / r.events)} µs`;
if (EVENTS > 0) {
  const results = [];
  const fifth = Math.round(EVENTS / 5);
  results.push(await run('default cap (newest 10,000 kept)', fifth, []));
  results.push(await run('default cap (newest 10,000 kept)', EVENTS, []));
  results.push(await run('no cap (--max-deliveries 1000000000)', EVENTS, ['--max-deliveries', '1000000000']));
  console.log(`\nSandbox memory, in memory mode (${IN_FLIGHT} triggers in flight, one webhook, a receiver that answers at once)\n`);
  console.log('| sandbox | events delivered | RSS when ready | peak RSS | time | sandbox CPU per event | said it dropped old deliveries |');
  console.log('|---|---|---|---|---|---|---|');
  for (const r of results)
    console.log(
      `| ${r.label} | ${r.events.toLocaleString('en')} | ${mb(r.baseline)} | ${mb(r.peak)} | ${r.seconds.toFixed(0)} s | ${perEvent(r)} | ${r.dropped ? 'yes, once' : 'no'} |`,
    );
}

if (SOAK_EVENTS > 0) {
  const dataDir = SOAK_DATA_DIR ? mkdtempSync(join(os.tmpdir(), 'whsvc-bench-memory-')) : undefined;
  let soak;
  try {
    soak = await run('soak', SOAK_EVENTS, dataDir ? ['--data-dir', dataDir] : [], { rate: SOAK_RATE });
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }
  // The peak reached by the end of each tenth of the events (and the resident set then).
  const tenths = Array.from({ length: 10 }, (_, i) => soak.samples.find((s) => s.received >= ((i + 1) * SOAK_EVENTS) / 10) ?? soak.samples.at(-1));
  // Warm-up is the first fifth: V8 sizes its young generation from the rates of allocation and survival, and grows it
  // while a stream goes on (to 64 MB a semi-space on a machine with 24 GB).
  const warm = tenths[1];
  console.log(
    `\nSoak: ${SOAK_EVENTS.toLocaleString('en')} events at ${SOAK_RATE.toLocaleString('en')} a second (${(SOAK_EVENTS / soak.seconds).toFixed(0)} delivered a second), ${SOAK_DATA_DIR ? '--data-dir (every delivery kept)' : 'in memory, default cap'}, RSS sampled every second (${soak.samples.length} samples)\n`,
  );
  console.log('| events delivered | time | RSS then | peak RSS so far | peak ÷ peak after warm-up |');
  console.log('|---:|---:|---:|---:|---:|');
  for (const s of tenths)
    console.log(`| ${s.received.toLocaleString('en')} | ${s.seconds.toFixed(0)} s | ${mb(s.rss)} | ${mb(s.peak)} | ${(s.peak / warm.peak).toFixed(2)}× |`);
  console.log(
    `\nPeak RSS at the end ÷ peak after warm-up (the first fifth): ${(soak.peak / warm.peak).toFixed(2)}×; ÷ peak after the first tenth: ${(soak.peak / tenths[0].peak).toFixed(2)}×; sandbox CPU per event ${perEvent(soak)}`,
  );
  if (SOAK_EVENTS === 200_000)
    console.log(`Budget: peak RSS ≤ ${BUDGET_MB} MB after 200,000 events: ${soak.peak / 1024 <= BUDGET_MB ? 'met' : 'NOT met'} (${mb(soak.peak)}).`);
}
