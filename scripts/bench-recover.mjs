// `whsvc deliveries recover` against the floor of a bare script doing the same
// work, and its peak memory for few and many candidates.
//
//   node scripts/bench-recover.mjs      (uses the dist/ already built)
//
// A sandbox (`--max-attempts 1`, so failures stay failed) holds
// BENCH_RECOVER_DELIVERIES failed deliveries (default 1000) of one webhook whose
// receiver always answers 503, so every run finds the same deliveries failed
// again. Then, interleaved (A B A B …, BENCH_RECOVER_RUNS pairs, default 15):
//   A: whsvc deliveries recover --yes --json (default concurrency, 8)
//   B: a bare script: node:http with a keep-alive Agent of 8 sockets, the token
//      given, that lists the failed attempts page by page (limit 200), keeps
//      each delivery's newest attempt and POSTs its retry, 8 in flight.
// Both walk the same log and send the same retry requests; the log grows by
// one attempt per delivery with each run, alike for both.
// Peak RSS (the kernel's maxrss, read by a preloaded hook at exit) of
// `recover --yes --json` over 10 and over 10,000 failed deliveries, each in its
// own sandbox, median of 3 runs; beside it, the bare script's over the same
// log, as a yardstick of what Node itself grows to for that many requests; and
// of `deliveries tail --since 1h --json --count N` through as many lines of the
// same log (a tail catching up on a long log, its lines streamed as it goes).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { startSandbox, WHSVC } from './sandbox-process.mjs';

const DELIVERIES = Number(process.env.BENCH_RECOVER_DELIVERIES ?? 1000);
const RUNS = Number(process.env.BENCH_RECOVER_RUNS ?? 15);
// Which parts to run: time, rss or both (default).
const PARTS = (process.env.BENCH_RECOVER_PARTS ?? 'time,rss').split(',');
const work = mkdtempSync(join(os.tmpdir(), 'whsvc-bench-recover-'));

const BARE = `
import http from 'node:http';
const [base, token, webhook] = [process.env.BASE, process.env.TOKEN, process.env.WEBHOOK];
const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
const request = (method, path) => new Promise((resolve, reject) => {
  const req = http.request(base + path, { method, agent, headers: { authorization: 'Bearer ' + token, accept: 'application/json' } }, (res) => {
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (c) => (text += c));
    res.on('end', () => resolve(JSON.parse(text)));
  });
  req.on('error', reject);
  req.end();
});
async function* targets() {
  const seen = new Set();
  let cursor;
  do {
    const page = await request('GET', '/v1/webhooks/' + webhook + '/deliveries?limit=200' + (cursor ? '&cursor=' + encodeURIComponent(cursor) : ''));
    for (const a of page.data) {
      const key = a.delivery_id ?? a.id;
      if (seen.has(key)) continue;
      seen.add(key);
      if (a.status === 'failed') yield a.id;
    }
    cursor = page.has_more ? page.next_cursor : undefined;
  } while (cursor);
}
const it = targets();
let sent = 0;
await Promise.all(Array.from({ length: 8 }, async () => {
  for (let next = await it.next(); !next.done; next = await it.next()) {
    await request('POST', '/v1/webhooks/webhook-deliveries/' + next.value + '/retry');
    sent += 1;
  }
}));
agent.destroy();
process.stdout.write(JSON.stringify({ sent }) + '\\n');
`;
writeFileSync(join(work, 'bare.mjs'), BARE);
writeFileSync(
  join(work, 'maxrss.cjs'),
  "process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(process.resourceUsage().maxRSS)));\n",
);
// The live heap: a full collection every 20 ms, the largest heap left after one (in KB, as maxrss).
writeFileSync(
  join(work, 'live.cjs'),
  'let peak = 0; const t = setInterval(() => { global.gc(); peak = Math.max(peak, process.memoryUsage().heapUsed); }, 20); t.unref();\n' +
    "process.on('exit', () => require('node:fs').writeFileSync(process.env.BENCH_RSS_FILE, String(peak / 1024)));\n",
);

async function sandboxWithFailures(count) {
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.statusCode = 503;
      res.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { child, info } = await startSandbox(['--quiet', '--max-attempts', '1', '--max-deliveries', String(count * 2)]);
  const pool = new Pool(info.base_url, { connections: 32 });
  const call = async (method, path, body, token) => {
    const res = await pool.request({
      method,
      path,
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body && JSON.stringify(body),
    });
    const text = await res.body.text();
    if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
    return JSON.parse(text);
  };
  const { access_token: token } = await call('POST', '/v1/oauth/token', {
    grant_type: 'client_credentials',
    client_id: info.client_id,
    client_secret: info.client_secret,
  });
  const { id: webhook } = await call('POST', '/v1/webhooks', { url: `http://127.0.0.1:${receiver.address().port}/hook`, events: ['invoice.paid'] }, token);
  let next = 0;
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < count) {
        next += 1;
        await call('POST', '/_sandbox/events', { type: 'invoice.paid' });
      }
    }),
  );
  // Until every first attempt has failed (none pending).
  for (;;) {
    const pending = await call('GET', `/v1/webhooks/${webhook}/deliveries?status=pending&limit=1`, undefined, token);
    if (pending.data.length === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await pool.close();
  const configDir = mkdtempSync(join(work, 'config-'));
  const env = {
    ...process.env,
    WHSVC_CONFIG_DIR: configDir,
    WHSVC_BASE_URL: info.base_url,
    WHSVC_CLIENT_ID: info.client_id,
    WHSVC_CLIENT_SECRET: info.client_secret,
    CI: 'true',
    NO_COLOR: '1',
  };
  return {
    info,
    token,
    webhook,
    env,
    stop: () => {
      child.kill();
      return new Promise((resolve) => receiver.close(resolve));
    },
  };
}

function timed(args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) =>
      code === 0 || code === 1 ? resolve({ ms: performance.now() - started, out }) : reject(new Error(`${args.join(' ')} exited ${code}: ${err}`)),
    );
  });
}

const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];

if (PARTS.includes('time')) {
  const s = await sandboxWithFailures(DELIVERIES);
  // The first run caches the token; its time is not counted.
  await timed([WHSVC, 'deliveries', 'recover', '--yes', '--json'], s.env);
  const recoverMs = [];
  const bareMs = [];
  for (let i = 0; i < RUNS; i++) {
    const a = await timed([WHSVC, 'deliveries', 'recover', '--yes', '--json'], s.env);
    const resent = JSON.parse(a.out).summary.resent;
    if (resent !== DELIVERIES) throw new Error(`recover re-sent ${resent}, not ${DELIVERIES}`);
    recoverMs.push(a.ms);
    const b = await timed([join(work, 'bare.mjs')], { ...process.env, BASE: s.info.base_url, TOKEN: s.token, WEBHOOK: s.webhook });
    if (JSON.parse(b.out).sent !== DELIVERIES) throw new Error(`the bare script sent ${b.out}`);
    bareMs.push(b.ms);
  }
  await s.stop();
  console.log(`Node ${process.version}; recover of ${DELIVERIES} failed deliveries, ${RUNS} interleaved pairs (median wall ms)\n`);
  console.log('| run | median ms | min | max |');
  console.log('|---|---|---|---|');
  for (const [name, list] of [
    ['whsvc deliveries recover --yes --json', recoverMs],
    ['bare node:http script', bareMs],
  ]) {
    console.log(`| ${name} | ${median(list).toFixed(0)} | ${Math.min(...list).toFixed(0)} | ${Math.max(...list).toFixed(0)} |`);
  }
  console.log(`\nrecover / bare: ${(median(recoverMs) / median(bareMs)).toFixed(2)}x\n`);
}

if (PARTS.includes('rss')) {
  const rows = [];
  for (const count of [10, 10_000]) {
    const box = await sandboxWithFailures(count);
    const bareEnv = { ...process.env, BASE: box.info.base_url, TOKEN: box.token, WEBHOOK: box.webhook };
    // Interleaved, each round in a turned order: every recover adds an attempt per delivery to the log, so no kind of
    // run reads the shortest log of every round.
    const samples = { rss: [], bare: [], live: [], tail: [] };
    const runs = [
      ['rss', [WHSVC, 'deliveries', 'recover', '--yes', '--json'], box.env, 'maxrss.cjs', ''],
      ['bare', [join(work, 'bare.mjs')], bareEnv, 'maxrss.cjs', ''],
      ['live', [WHSVC, 'deliveries', 'recover', '--yes', '--json'], box.env, 'live.cjs', '--expose-gc'],
      ['tail', [WHSVC, 'deliveries', 'tail', '--since', '1h', '--json', '--count', String(count)], box.env, 'maxrss.cjs', ''],
    ];
    for (let i = 0; i < 3; i++) {
      for (const [name, args, env, hook, extra] of [...runs.slice(i), ...runs.slice(0, i)]) {
        const file = join(work, `m-${count}-${name}-${i}`);
        await timed(args, { ...env, NODE_OPTIONS: `${extra} --require ${join(work, hook)}`, BENCH_RSS_FILE: file });
        samples[name].push(Number(readFileSync(file, 'utf8')) / 1024);
      }
    }
    rows.push({ count, rss: median(samples.rss), bare: median(samples.bare), live: median(samples.live), tail: median(samples.tail) });
    await box.stop();
  }
  console.log(
    '| failed deliveries re-sent (tail: lines) | recover: peak RSS (median of 3) | the bare script: peak RSS (median of 3) | recover: peak live heap, after a full GC every 20 ms (median of 3) | tail: peak RSS (median of 3) |',
  );
  console.log('|---|---|---|---|---|');
  for (const r of rows)
    console.log(`| ${r.count.toLocaleString('en')} | ${r.rss.toFixed(1)} MB | ${r.bare.toFixed(1)} MB | ${r.live.toFixed(1)} MB | ${r.tail.toFixed(1)} MB |`);
  const ratio = (key) => (rows[1][key] / rows[0][key]).toFixed(2);
  console.log(
    `\n10,000 / 10: recover's peak RSS ${ratio('rss')}x, the bare script's ${ratio('bare')}x, recover's live heap ${ratio('live')}x, tail's peak RSS ${ratio('tail')}x`,
  );
}
rmSync(work, { recursive: true, force: true });
