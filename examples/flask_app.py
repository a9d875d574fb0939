# Run from the repository root: pip install flask && PORT=3000 SECRET_FILE=whsec.txt python3 examples/flask_app.py
# SECRET_FILE is one path, or several separated by ':' as in PATH (';' on Windows): any one verifies.
#
# A webhook receiver on Flask (2 or 3). It takes the service's deliveries at POST /webhooks: it
# verifies each signature over the raw body, refuses a bad one with a 400, and does the work of
# each delivery once, however often the service sends it.
# Why each step: docs/receivers.md, beside this folder.

import hashlib
import hmac
import json
import os
import sys
import threading
from pathlib import Path

from flask import Flask, request

# The headers are named after the service's platform: X-Acme-Signature when it is Acme.
PLATFORM = os.environ.get("PLATFORM_NAME", "Service")
# Each key is the whole whsec_… string, as bytes: never base64-decoded. strip() drops the newline
# an editor or `echo` may leave at the end of the file. Read once, as it starts: restart it after a change.
SECRET_FILES = [path for path in (os.environ.get("SECRET_FILE") or "whsec.txt").split(os.pathsep) if path]
try:
    SECRETS = [Path(path).read_bytes().strip() for path in SECRET_FILES]
except OSError as error:
    sys.exit(f"cannot read the secret file {error.filename}: {error.strerror}")

app = Flask(__name__)
app.config["MAX_CONTENT_LENGTH"] = 1024 * 1024  # the service sends 64 KiB at most

# Each delivery id's work: "in flight" while it runs, "done" once it succeeded; the id of work that
# failed is dropped, so that the service's next attempt does it. In memory here: in your app, store
# each id with a unique key in the same transaction as the work (docs/receivers.md shows how).
deliveries = {}
deliveries_lock = threading.Lock()  # requests run in threads of their own


def signature_is_valid(body, header):
    # Any secret verifies: while the webhook moves to a new secret, a delivery is signed with the old or the new.
    expected = (b"sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest().encode() for secret in SECRETS)
    # Bytes, not str: compare_digest raises on a str that is not ASCII, and takes bytes of any length.
    return any(hmac.compare_digest(header.encode(), each) for each in expected)


def handle(event, delivery_id):
    # Your work, by event type (event["event"]). The answer must reach the service within 10 s, or
    # it counts as failed and is sent again: hand anything slow to a queue and answer at once.
    print(f"handled {delivery_id} {event.get('event')}", flush=True)


@app.post("/webhooks")
def webhooks():
    # The signature covers the bytes as sent: verify request.get_data(), never request.json written
    # out again (json.dumps spaces and orders it otherwise).
    body = request.get_data()
    if not signature_is_valid(body, request.headers.get(f"X-{PLATFORM}-Signature", "")):
        return "bad or missing signature\n", 400
    delivery_id = request.headers.get(f"X-{PLATFORM}-Delivery-Id")
    if not delivery_id:
        return f"no X-{PLATFORM}-Delivery-Id\n", 400
    try:
        event = json.loads(body)
    except ValueError:
        return "not JSON\n", 400
    with deliveries_lock:
        state = deliveries.get(delivery_id)
        if state is None:
            deliveries[delivery_id] = "in flight"  # claimed: this request does the work
    # A delivery handled already, sent again because our answer was lost: a 2xx, so that it stops.
    if state == "done":
        return "already handled\n", 200
    # Its work still runs (an earlier attempt timed out): not done, so no 2xx. The service sends it
    # again after any other answer; a 503 says "not now", where a 4xx would say the delivery is wrong.
    if state == "in flight":
        return "still being handled, try again later\n", 503
    try:
        handle(event, delivery_id)
    except Exception:
        with deliveries_lock:
            del deliveries[delivery_id]  # released: the service sends it again after this 500
        app.logger.exception("failed %s", delivery_id)
        return "failed, try again\n", 500
    with deliveries_lock:
        deliveries[delivery_id] = "done"
    return "ok\n", 200


if __name__ == "__main__":
    # Flask's development server; in production, a WSGI server: gunicorn -b 127.0.0.1:3000 flask_app:app
    app.run(host="127.0.0.1", port=int(os.environ.get("PORT", "3000")))
