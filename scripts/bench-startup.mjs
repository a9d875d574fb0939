// Start-up benchmark: median wall time of whsvc commands as ratios to
// yardsticks run in the same loop on the same Node: an empty .mjs file (a Node
// program that does nothing) for --version and --help, and a bare node:http GET
// of the same page for `webhooks list --json`.
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, WHSVC } from './sandbox-process.mjs';

const RUNS = Number(process.env.BENCH_STARTUP_RUNS ?? 41);
const work = mkdtempSync(join(tmpdir(), 'whsvc-bench-startup-'));

function time(args, options = {}) {
  const started = process.hrtime.bigint();
  const result = spawnSync(process.execPath, args, { stdio: ['pipe', 'ignore', 'pipe'], ...options });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return ms;
}

/**
 * Runs every case once per round, RUNS rounds, so that a drift in the
 * machine's load touches all cases alike; then the median, min and max of each.
 */
function measureAll(cases) {
  for (const c of cases) for (let i = 0; i < 3; i++) time(c.args, c.options); // warm the OS cache and Node's compile cache
  const samples = cases.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, c] of cases.entries()) samples[i].push(time(c.args, c.options));
  }
  return samples.map(spread);
}

/** The median, min and max of a list of timings. */
function spread(list) {
  const sorted = [...list].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)], min: sorted[0], max: sorted[sorted.length - 1] };
}

/** `sandbox start` until its JSON line (one process: Node started once), interleaved with an empty .mjs. */
async function sandboxUntilReady(empty, fmt) {
  const rounds = Number(process.env.BENCH_STARTUP_SANDBOX_RUNS ?? 15);
  const ready = async () => {
    const started = process.hrtime.bigint();
    const { child } = await startSandbox(['--quiet']);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    await new Promise((resolve) => {
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
    return ms;
  };
  const kinds = [
    { name: 'an empty `.mjs` (yardstick)', run: async () => time([empty]) },
    { name: '`whsvc sandbox start` until ready', run: ready },
  ];
  for (const kind of kinds) await kind.run();
  const samples = kinds.map(() => []);
  for (let round = 0; round < rounds; round++) for (const [i, kind] of kinds.entries()) samples[i].push(await kind.run());
  const medians = samples.map((list) => spread(list).median);
  console.log(`\n${rounds} rounds, interleaved (median wall ms)\n`);
  console.log('| sandbox | median ms | × empty .mjs |');
  console.log('|---|---|---|');
  for (const [i, kind] of kinds.entries()) console.log(`| ${kind.name} | ${fmt(medians[i])} | ${(medians[i] / medians[0]).toFixed(2)} |`);
}

const { child: sandbox, info } = await startSandbox(['--quiet']);
try {
  const env = { ...process.env, WHSVC_CONFIG_DIR: join(work, 'config'), WHSVC_BASE_URL: info.base_url, NO_COLOR: '1' };
  const login = spawnSync(process.execPath, [WHSVC, 'login', '--client-id', info.client_id, '--client-secret-stdin'], { env, input: info.client_secret });
  if (login.status !== 0) throw new Error(`login failed: ${login.stderr}`);
  const token = spawnSync(process.execPath, [WHSVC, 'auth', 'token'], { env, encoding: 'utf8' }).stdout.trim();
  for (let i = 0; i < 3; i++) {
    spawnSync(process.execPath, [WHSVC, 'webhooks', 'create', '--url', 'http://127.0.0.1:9/hook', '--events', 'invoice.paid', '--inactive'], { env });
  }

  // The same GET twice, importing node:http as an ES module (the yardstick) and requiring it: an ES import
  // of node:http reads all of its exports, and one of them (WebSocket) loads Node's own copy of undici,
  // with crypto; require() does not.
  const getScript = `request(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } }, (res) => {
  let body = '';
  res.on('data', (c) => (body += c));
  res.on('end', () => process.stdout.write(body));
}).end();
`;
  const bareGet = join(work, 'bare-get.mjs');
  writeFileSync(bareGet, `import { request } from 'node:http';\n${getScript}`);
  const bareGetCjs = join(work, 'bare-get.cjs');
  writeFileSync(bareGetCjs, `const { request } = require('node:http');\n${getScript}`);
  const bareFetch = join(work, 'bare-fetch.mjs');
  writeFileSync(
    bareFetch,
    `const res = await fetch(process.env.URL, { headers: { authorization: 'Bearer ' + process.env.TOKEN } });\nprocess.stdout.write(await res.text());\n`,
  );
  const empty = join(work, 'empty.mjs');
  writeFileSync(empty, '');
  const payload = join(work, 'payload.json');
  const body = JSON.stringify({ id: 'inv_1', event: 'invoice.paid', blob: randomBytes(750_000).toString('base64') }).slice(0, 1_000_000);
  writeFileSync(payload, body);
  const signature = 'sha256=' + createHmac('sha256', 'whsec_bench').update(body).digest('hex');

  const getEnv = { env: { ...process.env, URL: `${info.base_url}/v1/webhooks`, TOKEN: token } };
  const cases = [
    { name: 'an empty `.mjs` (yardstick)', args: [empty] },
    { name: '`whsvc --version`', args: [WHSVC, '--version'] },
    { name: '`whsvc --help`', args: [WHSVC, '--help'] },
    { name: '`whsvc webhooks --help` (loads the program)', args: [WHSVC, 'webhooks', '--help'] },
    { name: 'bare `node:http` GET of /v1/webhooks (yardstick)', args: [bareGet], options: getEnv },
    { name: 'bare `node:http` GET, CommonJS (`require`)', args: [bareGetCjs], options: getEnv },
    { name: 'bare global `fetch` GET of /v1/webhooks', args: [bareFetch], options: getEnv },
    { name: '`whsvc webhooks list --json` (cached token)', args: [WHSVC, 'webhooks', 'list', '--json'], options: { env } },
    { name: '`whsvc verify` on a 1 MB payload', args: [WHSVC, 'verify', '--signature', signature, '--secret', 'whsec_bench', '--payload-file', payload] },
  ];
  const results = measureAll(cases);
  const [empties, version, help, , get, , , list] = results;
  const fmt = (n) => n.toFixed(1);
  const ratio = (a, b) => (a.median / b.median).toFixed(2);
  console.log(`Node ${process.version}, ${RUNS} rounds of every command, interleaved (median, min, max wall ms)\n`);
  console.log('| command | median ms | min | max | × empty .mjs | × bare GET |');
  console.log('|---|---|---|---|---|---|');
  cases.forEach((c, i) => {
    const m = results[i];
    console.log(`| ${c.name} | ${fmt(m.median)} | ${fmt(m.min)} | ${fmt(m.max)} | ${ratio(m, empties)} | ${ratio(m, get)} |`);
  });
  console.log(`\n\`whsvc --version\` ${ratio(version, empties)}×, \`whsvc --help\` ${ratio(help, empties)}× an empty .mjs (aim ≤ 1.1×).`);
  console.log(`\`webhooks list --json\` ${ratio(list, get)}× the bare node:http GET (aim ≤ 1.2×).`);
  await sandboxUntilReady(empty, fmt);
} finally {
  sandbox.kill('SIGTERM');
  rmSync(work, { recursive: true, force: true });
}
