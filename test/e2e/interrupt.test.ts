import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWhsvc } from '../helpers/cli.js';
import { startReceiver, type Receiver } from '../helpers/receiver.js';

let service: Receiver;
let workDir: string;

beforeAll(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-int-'));
  // A service that hands out tokens, the catalog and an account with no webhook (create looks for one at its URL), then
  // never answers the create.
  const json = (body: string) => ({ status: 200, body, headers: { 'content-type': 'application/json' } });
  service = await startReceiver((request) => {
    if (request.path === '/v1/oauth/token') return json('{"access_token":"t","token_type":"Bearer","expires_in":3600}');
    if (request.path === '/v1/webhooks/webhook-events') return json('{"data":[{"type":"invoice.paid","module":"finance","desc":"x"}]}');
    if (request.path.startsWith('/v1/webhooks?')) return json('{"data":[],"has_more":false,"next_cursor":null}');
    return 'hold';
  });
});

afterAll(async () => {
  await service.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('Ctrl-C', () => {
  it('exits 130 and leaves no secret file behind when the create is interrupted', async () => {
    const secretFile = join(workDir, 'whsec.txt');
    const create = startWhsvc(['webhooks', 'create', '--url', 'https://example.com/h', '--events', 'invoice.paid', '--secret-file', secretFile], {
      env: { WHSVC_CONFIG_DIR: join(workDir, 'config'), WHSVC_BASE_URL: service.url, WHSVC_CLIENT_ID: 'a', WHSVC_CLIENT_SECRET: 'b' },
    });
    await service.waitFor(1, 20_000, '/v1/webhooks');
    // Reserved beside the path, not at it: a kill -9 now would leave no file there.
    const reservation = () => readdirSync(workDir).filter((name) => name.startsWith('.whsec.txt.whsvc-'));
    expect(existsSync(secretFile)).toBe(false);
    expect(reservation()).toHaveLength(1);
    expect(await create.stop('SIGINT')).toBe(130);
    expect(existsSync(secretFile)).toBe(false);
    expect(reservation()).toEqual([]);
    const stderr = create.stderr();
    expect(stderr).toContain('interrupted');
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
