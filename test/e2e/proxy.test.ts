import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, sandboxEnv } from '../helpers/cli.js';
import { startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import { type ForwardProxy, NO_PROXY_ENV, startForwardProxy, startTlsFront, type TlsFront } from '../helpers/proxy.js';

// What only the launched process shows of a proxy: NODE_EXTRA_CA_CERTS, read by Node as it starts, trusts the private CA
// of a service reached through the proxy's tunnel. The proxy variables themselves are in-process
// (test/integration/proxy.test.ts); the service behind the TLS front is the sandbox in this test's own process.

let sandbox: SandboxInProcess;
let proxy: ForwardProxy;
let tls: TlsFront;
let configDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  [proxy, tls] = await Promise.all([startForwardProxy(), startTlsFront(sandbox.info.base_url)]);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-proxy-'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.close(), tls?.close()]);
  rmSync(configDir, { recursive: true, force: true });
});

describe('proxies from the environment, for hosts other than this machine', () => {
  it('HTTPS_PROXY: a service elsewhere is reached through a CONNECT tunnel, its private CA trusted through NODE_EXTRA_CA_CERTS', async () => {
    const result = await runCli(['webhooks', 'list', '--json'], {
      env: { ...NO_PROXY_ENV, ...sandboxEnv(sandbox.info, configDir), WHSVC_BASE_URL: tls.proxiedUrl, HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: tls.caFile },
    });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [] });
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${new URL(tls.proxiedUrl).host}`]));
  });
});
