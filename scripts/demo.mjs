// The demo, as a user would type it: start the sandbox, log in, create a
// webhook to a local receiver with its secret captured to a file, make an
// event occur, and see the signed delivery arrive and verify.
import { spawn, spawnSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const whsvcBin = fileURLToPath(new URL('../bin/whsvc', import.meta.url));
const workDir = mkdtempSync(join(tmpdir(), 'whsvc-demo-'));
// A config dir of the demo's own, so the demo never touches your profiles.
const env = { ...process.env, WHSVC_CONFIG_DIR: join(workDir, 'config') };
const say = (text) => process.stdout.write(`\n# ${text}\n`);

/** Shows the command as typed, runs it, and stops the demo if it fails. */
function whsvc(args, { input, shown } = {}) {
  process.stdout.write(`$ ${shown ?? `whsvc ${args.join(' ')}`}\n`);
  const result = spawnSync(process.execPath, [whsvcBin, ...args], { env, input: input ?? '', stdio: ['pipe', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`whsvc ${args[0]} exited with ${result.status}`);
}

say('Start the sandbox: the service, locally (a real HTTP server on a free port)');
process.stdout.write('$ whsvc sandbox start --port 0 --json &\n');
const sandbox = spawn(process.execPath, [whsvcBin, 'sandbox', 'start', '--port', '0', '--json'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
sandbox.stderr.on('data', (chunk) => process.stdout.write(`  [sandbox] ${chunk.toString().trimEnd().replace(/\n/g, '\n  [sandbox] ')}\n`));
const info = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    // The ready lines go to stderr first; let them show before going on.
    if (out.includes('\n')) setTimeout(() => resolve(JSON.parse(out.slice(0, out.indexOf('\n')))), 50);
  });
  sandbox.on('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
});
env.WHSVC_BASE_URL = info.base_url;
const stop = () => {
  if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
  rmSync(workDir, { recursive: true, force: true });
};
process.on('exit', stop);

try {
  process.stdout.write(`  base URL ${info.base_url}, client ${info.client_id}\n`);
  const secretFile = join(workDir, 'whsec.txt');

  say('A local receiver that checks X-Service-Signature with the secret file, as your endpoint would');
  let delivered;
  const arrived = new Promise((resolve) => (delivered = resolve));
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const secret = readFileSync(secretFile, 'utf8').trim();
      const expected = Buffer.from('sha256=' + createHmac('sha256', secret).update(raw).digest('hex'));
      const given = Buffer.from(String(req.headers['x-service-signature'] ?? ''));
      const ok = given.length === expected.length && timingSafeEqual(given, expected);
      res.statusCode = ok ? 200 : 400;
      res.end();
      delivered({ headers: req.headers, body: raw.toString('utf8'), ok });
    });
  });
  await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `http://127.0.0.1:${receiver.address().port}/webhooks`;
  process.stdout.write(`  listening on ${receiverUrl}\n`);

  say('Log in: the secret comes from stdin, never the command line; a token proves it first');
  whsvc(['login', '--client-id', info.client_id, '--client-secret-stdin'], {
    input: info.client_secret,
    shown: `printf %s "$CLIENT_SECRET" | whsvc login --client-id ${info.client_id} --client-secret-stdin`,
  });

  say('Create a webhook; its signing secret goes straight to a 0600 file');
  whsvc(['webhooks', 'create', '--url', receiverUrl, '--events', 'invoice.paid', '--secret-file', secretFile], {
    shown: `whsvc webhooks create --url ${receiverUrl} --events invoice.paid --secret-file ./whsec.txt`,
  });

  say('Make an event occur');
  whsvc(['sandbox', 'trigger', 'invoice.paid']);

  const delivery = await Promise.race([
    arrived,
    new Promise((_, reject) => setTimeout(() => reject(new Error('no delivery within 30 s')), 30_000).unref()),
  ]);
  say('The delivery arrived at the receiver');
  process.stdout.write(`  X-Service-Event: ${delivery.headers['x-service-event']}\n`);
  process.stdout.write(`  X-Service-Delivery-Id: ${delivery.headers['x-service-delivery-id']}\n`);
  process.stdout.write(`  X-Service-Signature: ${delivery.headers['x-service-signature']}\n`);
  process.stdout.write(`  body: ${delivery.body}\n`);
  process.stdout.write(delivery.ok ? '  signature verified: the body is genuine and unaltered\n' : '  SIGNATURE DID NOT VERIFY\n');
  receiver.closeAllConnections();
  receiver.close();

  say('The delivery log');
  const webhookId = JSON.parse(
    spawnSync(process.execPath, [whsvcBin, 'webhooks', 'list', '--json'], { env, encoding: 'utf8' }).stdout,
  ).data[0].id;
  whsvc(['deliveries', 'list', webhookId]);
  if (!delivery.ok) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`demo failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  stop();
}
