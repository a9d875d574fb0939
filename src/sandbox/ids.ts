import { randomBytes } from 'node:crypto';

// Ids are drawn from a pool of random bytes refilled 4 KiB at a time: the
// sandbox makes several per event, and one call into the CSPRNG per id shows.
let pool = Buffer.alloc(0);
let offset = 0;

function random(bytes: number): Buffer {
  if (offset + bytes > pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  offset += bytes;
  return pool.subarray(offset - bytes, offset);
}

/** Opaque ids: a type prefix and 24 hex digits (`wh_…`, `dlv_…`, `evt_…`). */
export function newId(prefix: 'wh' | 'dlv' | 'evt'): string {
  return `${prefix}_${random(12).toString('hex')}`;
}

/** Secrets come straight from the CSPRNG, never from the shared pool. */
export function newSecret(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
