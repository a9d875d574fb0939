// Run from the repository root: PORT=3000 SECRET_FILE=whsec.txt node examples/node-http.mjs
// SECRET_FILE is one path, or several separated by ':' as in PATH (';' on Windows): any one verifies.
//
// A webhook receiver on Node's own http module, with nothing to install. It takes the service's
// deliveries at POST /webhooks: it verifies each signature over the raw body, refuses a bad one
// with a 400, and does the work of each delivery once, however often the service sends it.
// Why each step: docs/receivers.md, beside this folder.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { delimiter } from 'node:path';

// The headers are named after the service's platform: X-Acme-Signature when it is Acme.
const PLATFORM = process.env.PLATFORM_NAME ?? 'Service';
// Each key is the whole whsec_… string, as bytes: never base64-decoded. trim() drops the newline
// an editor or `echo` may leave at the end of the file. Read once, as it starts: restart it after a change.
function readSecret(path) {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch (error) {
    console.error(`cannot read the secret file ${path}: ${error.code === 'ENOENT' ? 'No such file or directory' : error.message}`);
    process.exit(1);
  }
}
const secrets = (process.env.SECRET_FILE || 'whsec.txt').split(delimiter).filter(Boolean).map(readSecret);
const MAX_BODY = 1024 * 1024; // the service sends 64 KiB at most

// Each delivery id's work: 'in flight' while it runs, 'done' once it succeeded; the id of work that
// failed is dropped, so that the service's next attempt does it. In memory here: in your app, store
// each id with a unique key in the same transaction as the work (docs/receivers.md shows how).
const deliveries = new Map();

function signatureIsValid(body, header) {
  const given = Buffer.from(header ?? '');
  // Any secret verifies: while the webhook moves to a new secret, a delivery is signed with the old or the new.
  return secrets.some((secret) => {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
    // timingSafeEqual throws on buffers of unequal lengths: a short signature must be a 400, not a crash.
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

async function handle(event, deliveryId) {
  // Your work, by event type (event.event). The answer must reach the service within 10 s, or it
  // counts as failed and is sent again: hand anything slow to a queue and answer at once.
  console.log(`handled ${deliveryId} ${event.event}`);
}

async function receive(req, body, answer) {
  // Node gives the names of the headers it received in lower case.
  const header = (name) => req.headers[`x-${PLATFORM}-${name}`.toLowerCase()];
  if (!signatureIsValid(body, header('signature'))) return answer(400, 'bad or missing signature');
  const deliveryId = header('delivery-id');
  if (!deliveryId) return answer(400, `no X-${PLATFORM}-Delivery-Id`);
  let event;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return answer(400, 'not JSON');
  }
  // No lock is needed: nothing else runs between this look and the claim (no await between them).
  const state = deliveries.get(deliveryId);
  // A delivery handled already, sent again because our answer was lost: a 2xx, so that it stops.
  if (state === 'done') return answer(200, 'already handled');
  // Its work still runs (an earlier attempt timed out): not done, so no 2xx. The service sends it
  // again after any other answer; a 503 says "not now", where a 4xx would say the delivery is wrong.
  if (state === 'in flight') return answer(503, 'still being handled, try again later');
  deliveries.set(deliveryId, 'in flight');
  try {
    await handle(event, deliveryId);
  } catch (error) {
    deliveries.delete(deliveryId); // released: the service sends it again after this 500
    console.error(`failed ${deliveryId}:`, error);
    return answer(500, 'failed, try again');
  }
  deliveries.set(deliveryId, 'done');
  answer(200, 'ok');
}

const server = createServer((req, res) => {
  const answer = (status, text) => res.writeHead(status, { 'content-type': 'text/plain' }).end(`${text}\n`);
  if (req.method !== 'POST' || req.url !== '/webhooks') return answer(404, 'not found');
  // The signature covers the bytes as sent: keep them as they came, and verify before JSON.parse.
  const chunks = [];
  let size = 0;
  req.on('data', (chunk) => {
    size += chunk.length;
    if (size <= MAX_BODY) chunks.push(chunk);
  });
  req.on('end', () => (size > MAX_BODY ? answer(413, 'body too large') : receive(req, Buffer.concat(chunks), answer)));
});

server.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
