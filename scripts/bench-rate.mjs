// `whsvc send --rate R --duration D` against a yardstick in the same loop: how close to the rate asked each comes.
//
//   node scripts/bench-rate.mjs      (uses the dist/ already built)
//
// One receiver (node:http in this process, answering 204 at once) counts what reaches it: how many, and when the
// first and the last came. Interleaved, for each rate of BENCH_RATE_RATES (default 200,1000,2000,4000 a second),
// BENCH_RATE_RUNS rounds (default 3) of BENCH_RATE_SECONDS (default 10), in a turned order each round:
//   A: whsvc send URL --secret-file F --rate R --duration Ds --json (every event type in turn, 5% repeats)
//   B: the bare sender: a plain undici loop in a process of its own, each POST started when setTimeout wakes it for
//      the deliveries due by then (the same open schedule: k due at k/R s), each body a catalog-sized JSON with a
//      fresh id, signed with createHmac, on one Agent (connections as needed, as whsvc's).
// Each process's CPU time (user + system, read at its exit by a preloaded hook). Then (BENCH_RATE_PARTS, default
// rate,rss) send --rate's peak RSS at BENCH_RATE_RSS_RATE a second (2000) over 10 s and over 60 s, three of each.
// The rate held is what the receiver saw: the deliveries received after the first ÷ the time from the first to the
// last (a sender that falls behind stretches it); and its steadiness, as a share of R: how far the first second
// (counted from the first delivery received) is from it, and the whole second after it furthest from it. Medians of the runs; the bare sender's failures (it has no cap of open
// requests) are not received, and count against it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { WHSVC } from './sandbox-process.mjs';

const RATES = (process.env.BENCH_RATE_RATES ?? '200,1000,2000,4000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_RATE_RUNS ?? 3);
const SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10);
// Which parts to run: the rates against the bare sender, and send --rate's peak memory over a short and a long run.
const PARTS = (process.env.BENCH_RATE_PARTS ?? 'rate,rss').split(',');
const RSS_RATE = Number(process.env.BENCH_RATE_RSS_RATE ?? 2000);
const work = mkdtempSync(join(os.tmpdir(), 'whsvc-bench-rate-'));
const SECRET = 'whsec_bench_rate_0123456789';
writeFileSync(join(work, 'whsec.txt'), SECRET);

const BARE = `
import { createHmac, randomBytes } from 'node:crypto';
import { Agent } from '${import.meta.resolve('undici')}';
const [url, rate, seconds, secret] = [new URL(process.env.URL), Number(process.env.RATE), Number(process.env.SECONDS), process.env.SECRET];
const agent = new Agent();
const total = Math.ceil(rate * seconds);
let started = 0;
let ended = 0;
let failed = 0;
const send = () => {
  const body = JSON.stringify({ id: 'inv_' + randomBytes(6).toString('hex'), event: 'invoice.paid', amount: { amount: 12900, currency: 'EUR' } });
  const signature = 'sha256=' + createHmac('sha256', secret).update(body).digest('hex');
  agent
    .request({ origin: url.origin, path: url.pathname, method: 'POST', body, headers: { 'content-type': 'application/json', 'x-service-signature': signature, 'x-service-delivery-id': 'dlv_' + randomBytes(12).toString('hex') } })
    .then(async (res) => { await res.body.dump(); if (res.statusCode >= 300) failed += 1; }, () => (failed += 1))
    .finally(() => { ended += 1; if (ended === total) done(); });
};
const origin = performance.now();
const tick = () => {
  const now = performance.now() - origin;
  while (started < total && (started * 1000) / rate <= now) { started += 1; send(); }
  if (started < total) setTimeout(tick, (started * 1000) / rate - now);
};
const done = () => { agent.close(); process.stdout.write(JSON.stringify({ sent: started, failed }) + '\\n'); };
tick();
`;
writeFileSync(join(work, 'bare.mjs'), BARE);
writeFileSync(
  join(work, 'cpu.cjs'),
  "process.on('exit', () => { const u = process.cpuUsage(); require('node:fs').writeFileSync(process.env.BENCH_CPU_FILE, String((u.user + u.system) / 1000)); require('node:fs').writeFileSync(process.env.BENCH_CPU_FILE + '.rss', String(process.resourceUsage().maxRSS)); });\n",
);

// What reached the receiver, by run (its path).
const seen = new Map();
const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const at = performance.now();
    const run = seen.get(req.url) ?? { count: 0, first: at, last: at, seconds: [] };
    run.count += 1;
    run.last = at;
    const second = Math.floor((at - run.first) / 1000);
    run.seconds[second] = (run.seconds[second] ?? 0) + 1;
    seen.set(req.url, run);
    res.statusCode = 204;
    res.end();
  });
});
receiver.keepAliveTimeout = 30_000;
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', 4096, resolve));
const base = `http://127.0.0.1:${receiver.address().port}`;

let runs = 0;
/** Runs `args` in a process of its own; resolves with what reached the receiver, the process's output and CPU time. */
function measured(kind, rate, seconds = SECONDS) {
  runs += 1;
  const path = `/run-${runs}`;
  const cpuFile = join(work, `cpu-${runs}`);
  const args =
    kind === 'whsvc'
      ? [WHSVC, 'send', base + path, '--secret-file', join(work, 'whsec.txt'), '--rate', String(rate), '--duration', `${seconds}s`, '--json']
      : [join(work, 'bare.mjs')];
  const env = { ...process.env, URL: base + path, RATE: String(rate), SECONDS: String(SECONDS), SECRET, NO_COLOR: '1', CI: 'true' };
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      env: { ...env, NODE_OPTIONS: `--require ${join(work, 'cpu.cjs')}`, BENCH_CPU_FILE: cpuFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => {
      if (code !== 0 && !(kind === 'whsvc' && code === 1)) return reject(new Error(`${kind} at ${rate}/s exited ${code}: ${err}${out}`));
      const got = seen.get(path) ?? { count: 0, first: 0, last: 0, seconds: [] };
      const heldRate = got.count > 1 ? ((got.count - 1) * 1000) / (got.last - got.first) : 0;
      // Whole seconds only: the last one is cut short by the end of the run.
      const whole = Array.from({ length: SECONDS - 1 }, (_, second) => got.seconds[second] ?? 0);
      const off = (count) => Math.abs(count - rate) / rate;
      const first = off(whole[0]);
      const worst = Math.max(...whole.slice(1).map(off));
      const output = JSON.parse(out);
      const rssMb = Number(readFileSync(`${cpuFile}.rss`, 'utf8')) / 1024;
      resolve({ received: got.count, heldRate, first, worst, cpuMs: Number(readFileSync(cpuFile, 'utf8')), rssMb, output });
    });
  });
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
if (PARTS.includes('rate')) {
  const results = new Map(RATES.map((rate) => [rate, { whsvc: [], bare: [] }]));
  for (let round = 0; round < RUNS; round++) {
    for (const rate of RATES) {
      const order = round % 2 === 0 ? ['whsvc', 'bare'] : ['bare', 'whsvc'];
      for (const kind of order) {
        const result = await measured(kind, rate);
        results.get(rate)[kind].push(result);
        process.stderr.write(`round ${round + 1}, ${rate}/s, ${kind}: ${result.received} received\n`);
      }
    }
  }

  const load = os.loadavg()[0].toFixed(1);
  console.log(`Node ${process.version}; ${SECONDS} s runs, ${RUNS} interleaved rounds, medians; load ${load} at the end\n`);
  console.log(
    '| rate asked | bare sender: received of due, rate held, first second, worst whole second after it, CPU per delivery | send --rate: the same | send --rate: late starts / never sent, by run |',
  );
  console.log('|---:|---|---|---|');
  const percent = (share) => `${(share * 100).toFixed(1)}%`;
  for (const [rate, { whsvc, bare }] of results) {
    const due = Math.ceil(rate * SECONDS);
    const cell = (list) => {
      const received = median(list.map((r) => r.received));
      const held = median(list.map((r) => r.heldRate));
      const first = median(list.map((r) => r.first));
      const worst = median(list.map((r) => r.worst));
      const cpu = median(list.map((r) => (r.cpuMs * 1000) / Math.max(1, r.received)));
      return `${received}/${due}, ${held.toFixed(1)}/s (${percent(held / rate)}), ±${percent(first)}, ±${percent(worst)}, ${cpu.toFixed(0)} µs`;
    };
    const late = whsvc.map((r) => `${r.output.late_starts}/${r.output.missed}`).join(', ');
    console.log(`| ${rate} | ${cell(bare)} | ${cell(whsvc)} | ${late} |`);
  }
}

if (PARTS.includes('rss')) {
  // Peak resident set of send --rate over a run six times as long, three of each, interleaved: what grows with the
  // deliveries (their answer times, their bodies) would show.
  const rows = { short: [], long: [] };
  for (let i = 0; i < 3; i++) {
    for (const [name, seconds] of [
      ['short', 10],
      ['long', 60],
    ]) {
      const result = await measured('whsvc', RSS_RATE, seconds);
      rows[name].push(result);
      process.stderr.write(`rss ${i + 1}, ${seconds} s: ${result.rssMb.toFixed(1)} MB\n`);
    }
  }
  const rss = (list) => `${median(list.map((r) => r.rssMb)).toFixed(1)} MB (${list.map((r) => r.rssMb.toFixed(1)).join(', ')})`;
  console.log(`\nsend --rate ${RSS_RATE}, peak RSS: 10 s (${RSS_RATE * 10} deliveries) ${rss(rows.short)}; 60 s (${RSS_RATE * 60}) ${rss(rows.long)}`);
}
receiver.close();
rmSync(work, { recursive: true, force: true });
