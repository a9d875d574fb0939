// Peak memory of an in-memory sandbox over many deliveries: the sandbox's
// resident set (VmHWM, the kernel's high-water mark) after BENCH_MEMORY_EVENTS
// events (default 100,000) delivered to a receiver that answers 200 at once,
// with the default cap on the deliveries kept; the same cap over a fifth as
// many events, to show the peak no longer grows with the count; and without a
// cap, for contrast.
//
//   node scripts/bench-memory.mjs        (uses the dist/ already built)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const WHSVC = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'whsvc');
const EVENTS = Number(process.env.BENCH_MEMORY_EVENTS ?? 100_000);
const IN_FLIGHT = 64;

const kib = (pid, field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN);
const mb = (kb) => `${(kb / 1024).toFixed(0)} MB`;

async function run(label, events, extraArgs) {
  let received = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      res.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const sandbox = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_SANDBOX_NODE_ARGS ?? '').split(' ').filter(Boolean),
      WHSVC,
      'sandbox',
      'start',
      '--port',
      '0',
      '--json',
      '--quiet',
      '--max-attempts',
      '1',
      ...extraArgs,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  sandbox.stderr.on('data', (c) => (stderr += c));
  const info = await new Promise((resolve, reject) => {
    let out = '';
    sandbox.stdout.on('data', (c) => {
      out += c;
      if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
    });
    sandbox.on('exit', (code) => reject(new Error(`sandbox exited ${code}: ${stderr}`)));
  });
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
  const baseline = kib(sandbox.pid, 'VmRSS');
  const started = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (next < events) {
        next += 1;
        await call('POST', '/_sandbox/events', { type: 'invoice.paid' });
      }
    }),
  );
  while (received < events) await new Promise((resolve) => setTimeout(resolve, 100));
  const seconds = (Date.now() - started) / 1000;
  const peak = kib(sandbox.pid, 'VmHWM');
  await pool.close();
  sandbox.kill('SIGTERM');
  receiver.close();
  const dropped = /the oldest are dropped/.test(stderr);
  return { label, events, baseline, peak, seconds, dropped };
}

const results = [];
const fifth = Math.round(EVENTS / 5);
results.push(await run('default cap (newest 10,000 kept)', fifth, []));
results.push(await run('default cap (newest 10,000 kept)', EVENTS, []));
results.push(await run('no cap (--max-deliveries 1000000000)', EVENTS, ['--max-deliveries', '1000000000']));
console.log(`\nSandbox memory, in memory mode (${IN_FLIGHT} triggers in flight, one webhook, a receiver that answers at once)\n`);
console.log('| sandbox | events delivered | RSS when ready | peak RSS | time | said it dropped old deliveries |');
console.log('|---|---|---|---|---|---|');
for (const r of results)
  console.log(
    `| ${r.label} | ${r.events.toLocaleString('en')} | ${mb(r.baseline)} | ${mb(r.peak)} | ${r.seconds.toFixed(0)} s | ${r.dropped ? 'yes, once' : 'no'} |`,
  );
