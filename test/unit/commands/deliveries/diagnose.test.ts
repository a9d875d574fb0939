import { describe, expect, it } from 'vitest';
import { diagnose } from '../../../../src/commands/deliveries/diagnose.js';

describe('a failed delivery in plain words', () => {
  const failed = (response_code: number, failure_reason: string | null = null) => ({ status: 'failed' as const, response_code, failure_reason });
  it('tells the kinds of no answer apart', () => {
    expect(diagnose(failed(0, 'connection refused'), 'not_checked').kind).toBe('refused');
    expect(diagnose(failed(0, 'host not found'), 'not_checked').kind).toBe('host_not_found');
    expect(diagnose(failed(0, 'no answer within 10 s'), 'not_checked').kind).toBe('timed_out');
    expect(diagnose(failed(0, "the server's certificate is not trusted (SELF_SIGNED_CERT_IN_CHAIN)"), 'not_checked').kind).toBe('tls');
    expect(diagnose({ status: 'failed', response_code: null, failure_reason: 'connection reset' }, 'not_checked').kind).toBe('no_answer');
  });

  it('tells what the app answered: a redirect, its signature check, a refusal, a failure', () => {
    expect(diagnose(failed(301), 'not_checked').kind).toBe('redirect');
    expect(diagnose(failed(401), 'not_checked').advice).toContain("holds this webhook's secret");
    // The signature matches under the secret, and the app still refused it: it verified something else than the raw body.
    expect(diagnose(failed(403), 'verified').advice).toContain('re-serialized JSON instead of the raw body');
    expect(diagnose(failed(422), 'not_checked').kind).toBe('client_error');
    expect(diagnose(failed(503), 'not_checked').kind).toBe('server_error');
    expect(diagnose({ status: 'delivered', response_code: 200, failure_reason: null }, 'not_checked').kind).toBe('delivered');
  });
});
