import { SIGNATURE_CHECKS, type SignatureCheck } from './signature.js';

/**
 * One delivery as recorded (`listen --record FILE`, `deliveries tail
 * --record`, `deliveries diagnose --record`; read by `replay`), a JSON object
 * a line: when it arrived, the request as received (method, path, every
 * header, the raw body), the signature check then, and what was answered. The
 * body is `body` when its bytes are UTF-8 (a JSON payload, as a rule), else
 * `body_base64`, so that any bytes come back exactly. No secret is ever part
 * of a record.
 */
export interface RecordedDelivery {
  whsvc_record: 1;
  received_at: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  body_base64?: string;
  /** The signature check when it was received (read with recordedSignatureCheck: older files say `signature`). */
  signature_check: SignatureCheck;
  event: string | null;
  delivery_id: string | null;
  attempt: number | null;
  /** What listen answered. */
  answered: number;
}

/** The words of record files written before `signature_check`, in their `signature` field. */
const EARLIER_WORDS: Record<string, SignatureCheck> = { ok: 'verified', bad: 'mismatch', unsigned: 'missing', unchecked: 'not_checked' };

/**
 * A record's signature check, from `signature_check`, or from the `signature`
 * of a file written before it (`ok`, `bad`, `unsigned`, `unchecked`); a
 * record that says neither was not checked.
 */
export function recordedSignatureCheck(record: object): SignatureCheck {
  const { signature_check: check, signature: earlier } = record as { signature_check?: unknown; signature?: unknown };
  if (SIGNATURE_CHECKS.includes(check as SignatureCheck)) return check as SignatureCheck;
  return (typeof earlier === 'string' && Object.hasOwn(EARLIER_WORDS, earlier) && EARLIER_WORDS[earlier]) || 'not_checked';
}
