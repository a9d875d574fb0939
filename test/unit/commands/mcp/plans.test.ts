import { describe, expect, it } from 'vitest';
import { CapturedJson, Secrets, toolResult } from '../../../../src/commands/mcp/call.js';
import { fingerprint, PLAN_TTL_MS, PlanBook } from '../../../../src/commands/mcp/plans.js';
import { CliError } from '../../../../src/cli/errors.js';

describe('PlanBook', () => {
  it('gives a plan back once, to the tool that made it, for the same arguments in any key order, before it expires', () => {
    let now = 1_000;
    const book = new PlanBook(() => now);
    const plan = book.keep('webhooks_delete', { id: 'wh_1', also: [1, 2] }, { read: 1 }, 'wh_1', undefined);
    expect(plan.id).toMatch(/^plan_[\w-]{16}$/);
    expect(plan.expiresAt).toBe(1_000 + PLAN_TTL_MS);
    expect(() => book.take(plan.id, 'webhooks_update', { id: 'wh_1', also: [1, 2] })).toThrow(/made by webhooks_delete, not webhooks_update/);
    expect(() => book.take(plan.id, 'webhooks_delete', { id: 'wh_2', also: [1, 2] })).toThrow(/made for other arguments/);
    expect(book.take(plan.id, 'webhooks_delete', { also: [1, 2], id: 'wh_1', none: undefined }).steps).toBe('wh_1');
    expect(() => book.take(plan.id, 'webhooks_delete', { id: 'wh_1', also: [1, 2] })).toThrow(/carried out already/);

    const late = book.keep('webhooks_delete', { id: 'wh_1' }, {}, 'wh_1', undefined);
    now += PLAN_TTL_MS + 60_000;
    const error = (() => {
      try {
        book.take(late.id, 'webhooks_delete', { id: 'wh_1' });
      } catch (caught) {
        return caught as CliError;
      }
    })();
    expect(error).toBeInstanceOf(CliError);
    expect(error!.message).toMatch(/expired 1 min ago .*nothing was changed/);
    expect(error!.hint).toBe('call webhooks_delete without plan_id to plan it again');
  });

  it('fingerprints what was read whatever the order of its keys, and any change to it', () => {
    expect(fingerprint({ id: 'wh_1', active: true })).toBe(fingerprint({ active: true, id: 'wh_1' }));
    expect(fingerprint({ id: 'wh_1', active: true })).not.toBe(fingerprint({ id: 'wh_1', active: false }));
  });
});

describe('a tool result', () => {
  it('never holds a signing_secret field, the client secret nor a token, in its structured content or its text', () => {
    const secrets = new Secrets('cs_client_secret_1234', () => 'tok_access_token_5678');
    const result = toolResult(
      {
        value: { id: 'wh_1', signing_secret: 'whsec_abcdef', said: 'echo cs_client_secret_1234 and tok_access_token_5678' },
        notes: ['note tok_access_token_5678'],
      },
      secrets,
    );
    const text = JSON.stringify(result);
    for (const secret of ['whsec_abcdef', 'cs_client_secret_1234', 'tok_access_token_5678']) expect(text).not.toContain(secret);
    expect(result.structuredContent).toEqual({ id: 'wh_1', said: 'echo [redacted] and [redacted]' });
  });

  it('keeps the numbers of the service that a double would change, as --json does', () => {
    const json = new CapturedJson();
    json.text('{"attempts":12345678901234567890123}');
    const result = toolResult({ value: json.value }, new Secrets(undefined, () => undefined));
    expect((result.content[0] as { text: string }).text).toContain('12345678901234567890123');
  });
});
