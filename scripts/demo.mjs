// The demo: starts the sandbox, gets a token, creates a webhook to a local
// receiver, makes an event occur and shows the signed delivery arrive and verify.
import { spawn, execFileSync } from 'node:child_process';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

const whsvc = fileURLToPath(new URL('../bin/whsvc', import.meta.url));
const step = (text) => process.stdout.write(`\n==> ${text}\n`);
const show = (text) => process.stdout.write(`    ${text}\n`);

step('whsvc sandbox start --port 0 --json   (the service, locally)');
const sandbox = spawn(process.execPath, [whsvc, 'sandbox', 'start', '--port', '0', '--json', '--quiet'], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
const info = await new Promise((resolve, reject) => {
  let out = '';
  sandbox.stdout.on('data', (chunk) => {
    out += chunk;
    if (out.includes('\n')) resolve(JSON.parse(out.slice(0, out.indexOf('\n'))));
  });
  sandbox.on('exit', (code) => reject(new Error(`the sandbox exited with ${code}`)));
});
const stopSandbox = () => sandbox.exitCode === null && sandbox.kill('SIGTERM');
process.on('exit', stopSandbox);

try {
  step('a local receiver that checks X-Service-Signature, as your endpoint would');
  let secret = '';
  let delivered;
  const arrived = new Promise((resolve) => (delivered = resolve));
  const receiver = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
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
  show(`listening on ${receiverUrl}`);

  step('POST /v1/oauth/token   (client credentials)');
  const tokenResponse = await fetch(`${info.base_url}/v1/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ grant_type: 'client_credentials', client_id: info.client_id, client_secret: info.client_secret }),
  });
  const token = await tokenResponse.json();
  show(`token_type ${token.token_type}, expires_in ${token.expires_in} s, scope "${token.scope}"`);

  step('POST /v1/webhooks   (subscribe the receiver to invoice.paid)');
  const created = await (
    await fetch(`${info.base_url}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiverUrl, events: ['invoice.paid'] }),
    })
  ).json();
  secret = created.signing_secret;
  show(`webhook ${created.id}, signing secret ${secret.slice(0, 10)}… (returned once, kept by the receiver)`);

  step('whsvc sandbox trigger invoice.paid   (make the event occur)');
  process.stdout.write(
    execFileSync(process.execPath, [whsvc, 'sandbox', 'trigger', 'invoice.paid', '--base-url', info.base_url], { encoding: 'utf8' }),
  );

  const delivery = await Promise.race([
    arrived,
    new Promise((_, reject) => setTimeout(() => reject(new Error('no delivery within 30 s')), 30_000).unref()),
  ]);
  step('the delivery arrived');
  show(`X-Service-Event: ${delivery.headers['x-service-event']}   X-Service-Delivery-Id: ${delivery.headers['x-service-delivery-id']}`);
  show(`X-Service-Signature: ${delivery.headers['x-service-signature']}`);
  show(`body: ${delivery.body}`);
  show(delivery.ok ? 'signature verified: the body is genuine and unaltered' : 'SIGNATURE DID NOT VERIFY');
  receiver.closeAllConnections();
  receiver.close();
  if (!delivery.ok) process.exitCode = 1;
} catch (error) {
  process.stderr.write(`demo failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  stopSandbox();
}
