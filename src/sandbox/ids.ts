import { randomBytes } from 'node:crypto';

/** Opaque ids: a type prefix and 24 hex digits (`wh_…`, `dlv_…`, `evt_…`). */
export function newId(prefix: 'wh' | 'dlv' | 'evt'): string {
  return `${prefix}_${randomBytes(12).toString('hex')}`;
}

export function newSecret(prefix: string, bytes = 24): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}
