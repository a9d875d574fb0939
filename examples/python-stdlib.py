# Run from the repository root: PORT=3000 SECRET_FILE=whsec.txt python3 examples/python-stdlib.py
# SECRET_FILE is one path, or several separated by ':' as in PATH (';' on Windows): any one verifies.
#
# A webhook receiver on Python's standard library (http.server), with nothing to install. It takes
# the service's deliveries at POST /webhooks: it verifies each signature over the raw body, refuses
# a bad one with a 400, and does the work of each delivery once, however often the service sends it.
# Why each step: docs/receivers.md, beside this folder.

import hashlib
import hmac
import json
import os
import sys
import threading
import traceback
from pathlib import Path
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The headers are named after the service's platform: X-Acme-Signature when it is Acme.
PLATFORM = os.environ.get("PLATFORM_NAME", "Service")
# Each key is the whole whsec_… string, as bytes: never base64-decoded. strip() drops the newline
# an editor or `echo` may leave at the end of the file. Read once, as it starts: restart it after a change.
SECRET_FILES = [path for path in (os.environ.get("SECRET_FILE") or "whsec.txt").split(os.pathsep) if path]
try:
    SECRETS = [Path(path).read_bytes().strip() for path in SECRET_FILES]
except OSError as error:
    sys.exit(f"cannot read the secret file {error.filename}: {error.strerror}")
MAX_BODY = 1024 * 1024  # the service sends 64 KiB at most

# Each delivery id's work: "in flight" while it runs, "done" once it succeeded; the id of work that
# failed is dropped, so that the service's next attempt does it. In memory here: in your app, store
# each id with a unique key in the same transaction as the work (docs/receivers.md shows how).
deliveries = {}
deliveries_lock = threading.Lock()  # each request runs in a thread of its own


def signature_is_valid(body, header):
    # Any secret verifies: while the webhook moves to a new secret, a delivery is signed with the old or the new.
    expected = (b"sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest().encode() for secret in SECRETS)
    # Bytes, not str: compare_digest raises on a str that is not ASCII, and takes bytes of any length.
    return any(hmac.compare_digest(header.encode("latin-1"), each) for each in expected)


def handle(event, delivery_id):
    # Your work, by event type (event["event"]). The answer must reach the service within 10 s, or
    # it counts as failed and is sent again: hand anything slow to a queue and answer at once.
    print(f"handled {delivery_id} {event.get('event')}", flush=True)


class Receiver(BaseHTTPRequestHandler):
    timeout = 10  # a sender that stalls mid-request is cut off, not given a thread for ever

    def do_POST(self):
        if self.path != "/webhooks":
            return self.answer(404, "not found")
        length = self.headers.get("Content-Length", "")
        if not length.isdigit():  # none, negative or not a number: read(-1) would read to the end of the stream
            return self.answer(411, "a Content-Length is needed")
        length = int(length)
        if length > MAX_BODY:
            return self.answer(413, "body too large")
        # The signature covers the bytes as sent: verify them as read, before json.loads.
        body = self.rfile.read(length)
        if not signature_is_valid(body, self.headers.get(f"X-{PLATFORM}-Signature", "")):
            return self.answer(400, "bad or missing signature")
        delivery_id = self.headers.get(f"X-{PLATFORM}-Delivery-Id")
        if not delivery_id:
            return self.answer(400, f"no X-{PLATFORM}-Delivery-Id")
        try:
            event = json.loads(body)
        except ValueError:
            return self.answer(400, "not JSON")
        with deliveries_lock:
            state = deliveries.get(delivery_id)
            if state is None:
                deliveries[delivery_id] = "in flight"  # claimed: this request does the work
        # A delivery handled already, sent again because our answer was lost: a 2xx, so that it stops.
        if state == "done":
            return self.answer(200, "already handled")
        # Its work still runs (an earlier attempt timed out): not done, so no 2xx. The service sends it
        # again after any other answer; a 503 says "not now", where a 4xx would say the delivery is wrong.
        if state == "in flight":
            return self.answer(503, "still being handled, try again later")
        try:
            handle(event, delivery_id)
        except Exception:
            with deliveries_lock:
                del deliveries[delivery_id]  # released: the service sends it again after this 500
            traceback.print_exc()
            return self.answer(500, "failed, try again")
        with deliveries_lock:
            deliveries[delivery_id] = "done"
        self.answer(200, "ok")

    def answer(self, status, text):
        data = f"{text}\n".encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


server = ThreadingHTTPServer(("127.0.0.1", int(os.environ.get("PORT", "3000"))), Receiver)
print(f"listening on http://127.0.0.1:{server.server_port}/webhooks", flush=True)
server.serve_forever()
