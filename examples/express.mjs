// Run from the repository root: PORT=3000 SECRET_FILE=whsec.txt node examples/express.mjs
// SECRET_FILE is one path, or several separated by ':' as in PATH (';' on Windows): any one verifies.
// Express is this repository's devDependency; in a copy in your own project, `npm install express` there.
//
// A webhook receiver on Express (4 or 5). It takes the service's deliveries at POST /webhooks:
// it verifies each signature over the raw body, refuses a bad one with a 400, and does the work
// of each delivery once, however often the service sends it.
// Why each step: docs/receivers.md, beside this folder.

import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import express from 'express';

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

const app = express();

// express.raw, not express.json, on this route: the signature covers the bytes as sent, so they
// are verified as they came, before any parsing. (Mount express.json() after this route, or on
// other routes only: once it has read the body, the bytes are gone.)
app.post('/webhooks', express.raw({ type: '*/*', limit: '1mb' }), async (req, res) => {
  const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0); // no body: not a Buffer
  if (!signatureIsValid(body, req.get(`X-${PLATFORM}-Signature`))) return res.status(400).send('bad or missing signature\n');
  const deliveryId = req.get(`X-${PLATFORM}-Delivery-Id`);
  if (!deliveryId) return res.status(400).send(`no X-${PLATFORM}-Delivery-Id\n`);
  let event;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    return res.status(400).send('not JSON\n');
  }
  // No lock is needed: nothing else runs between this look and the claim (no await between them).
  const state = deliveries.get(deliveryId);
  // A delivery handled already, sent again because our answer was lost: a 2xx, so that it stops.
  if (state === 'done') return res.status(200).send('already handled\n');
  // Its work still runs (an earlier attempt timed out): not done, so no 2xx. The service sends it
  // again after any other answer; a 503 says "not now", where a 4xx would say the delivery is wrong.
  if (state === 'in flight') return res.status(503).send('still being handled, try again later\n');
  deliveries.set(deliveryId, 'in flight');
  try {
    await handle(event, deliveryId);
  } catch (error) {
    deliveries.delete(deliveryId); // released: the service sends it again after this 500
    console.error(`failed ${deliveryId}:`, error);
    return res.status(500).send('failed, try again\n');
  }
  deliveries.set(deliveryId, 'done');
  res.status(200).send('ok\n');
});

const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}/webhooks`);
});
