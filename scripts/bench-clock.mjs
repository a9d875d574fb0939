// How fast the manual clock plays a retry schedule out, and that the time a
// jump takes does not depend on its length.
//
//   node scripts/bench-clock.mjs   (uses the dist/ already built; part of npm run bench)
//
// Each run starts a fresh `whsvc sandbox start --clock manual` (in memory,
// default schedule: 5 attempts, 5 s doubling), a receiver that answers 500 to
// everything, one webhook, and BENCH_CLOCK_EVENTS events (default 100). Once
// every first attempt has failed, one `POST /_sandbox/clock` jump plays the
// rest of the schedule out (4 retries per delivery). The jumps of 2 minutes
// (just past the last retry), 3 days and 300 days are run interleaved,
// BENCH_CLOCK_RUNS times each (default 7), and the medians are printed.

import http from 'node:http';
import { startSandbox } from './sandbox-process.mjs';

const EVENTS = Number(process.env.BENCH_CLOCK_EVENTS || 100);
const RUNS = Number(process.env.BENCH_CLOCK_RUNS || 7);
const JUMPS = [
  ['2m', 120_000],
  ['3d', 3 * 86_400_000],
  ['300d', 300 * 86_400_000],
];

const receiver = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(500).end('down'));
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const receiverUrl = `http://127.0.0.1:${receiver.address().port}/hook`;

async function call(base, token, method, path, body) {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return text ? JSON.parse(text) : undefined;
}

async function oneRun(jumpMs) {
  // Its banner stays out of the bench's output; what it said is shown only if it dies before it is ready.
  const { child, info } = await startSandbox(['--quiet', '--clock', 'manual']);
  try {
    const base = info.base_url;
    const { access_token: token } = await call(base, undefined, 'POST', '/v1/oauth/token', {
      grant_type: 'client_credentials',
      client_id: info.client_id,
      client_secret: info.client_secret,
    });
    const webhook = await call(base, token, 'POST', '/v1/webhooks', { url: receiverUrl, events: ['invoice.paid'] });
    for (let i = 0; i < EVENTS; i += 10) {
      await Promise.all(Array.from({ length: Math.min(10, EVENTS - i) }, () => call(base, undefined, 'POST', '/_sandbox/events', { type: 'invoice.paid' })));
    }
    // Every first attempt failed (and its retry is due), before the jump.
    for (;;) {
      const page = await call(base, token, 'GET', `/v1/webhooks/${webhook.id}/deliveries?status=failed&limit=200`);
      if (page.data.length >= EVENTS) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const started = performance.now();
    const jump = await call(base, token, 'POST', '/_sandbox/clock', { advance_ms: jumpMs });
    const ms = performance.now() - started;
    if (jump.sent !== EVENTS * 4) throw new Error(`expected ${EVENTS * 4} attempts in the jump, got ${jump.sent}`);
    return { ms, sent: jump.sent };
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.on('exit', resolve));
  }
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const results = new Map(JUMPS.map(([name]) => [name, []]));
for (let run = 0; run < RUNS; run++) {
  for (const [name, ms] of JUMPS) results.get(name).push(await oneRun(ms));
}
receiver.close();

console.log(`\nManual clock: one jump over ${EVENTS} failing deliveries (${EVENTS * 4} retries sent), median of ${RUNS} interleaved runs`);
console.log('jump      time     attempts/s of simulated schedule');
for (const [name] of JUMPS) {
  const runs = results.get(name);
  const ms = median(runs.map((r) => r.ms));
  console.log(`${name.padEnd(8)}  ${`${Math.round(ms)} ms`.padEnd(8)} ${Math.round((runs[0].sent / ms) * 1000)}`);
}
