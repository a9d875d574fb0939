import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runCli, startSandboxProcess, type SandboxProcess } from '../helpers/cli.js';
import { closedPort, startForwardProxy, startTlsFront, type ForwardProxy, type TlsFront } from '../helpers/proxy.js';

let sandbox: SandboxProcess;
let proxy: ForwardProxy;
let tls: TlsFront;
let configDir: string;

const NO_PROXY_ENV = { HTTP_PROXY: undefined, http_proxy: undefined, HTTPS_PROXY: undefined, https_proxy: undefined, NO_PROXY: undefined, no_proxy: undefined };

beforeAll(async () => {
  sandbox = await startSandboxProcess(['--quiet']);
  [proxy, tls] = await Promise.all([startForwardProxy(), startTlsFront(sandbox.info.base_url)]);
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-proxy-'));
});

afterAll(async () => {
  await Promise.all([sandbox?.stop(), proxy?.close(), tls?.close()]);
  rmSync(configDir, { recursive: true, force: true });
});

beforeEach(() => {
  proxy.seen.length = 0;
});

/** `webhooks list --json` with the sandbox's client from the environment, at `baseUrl`. */
function list(baseUrl: string, env: Record<string, string | undefined>, extra: string[] = []) {
  return runCli(['webhooks', 'list', '--json', ...extra], {
    env: {
      ...NO_PROXY_ENV,
      WHSVC_CONFIG_DIR: configDir,
      WHSVC_BASE_URL: baseUrl,
      WHSVC_CLIENT_ID: sandbox.info.client_id,
      WHSVC_CLIENT_SECRET: sandbox.info.client_secret,
      CI: 'true',
      ...env,
    },
  });
}

const sandboxHost = () => new URL(sandbox.info.base_url).host;
const tlsHost = () => new URL(tls.url).host;

describe('proxies from the environment (undici EnvHttpProxyAgent)', () => {
  it('HTTP_PROXY: the token request and the API call go through the proxy, loopback included', async () => {
    const result = await list(sandbox.info.base_url, { HTTP_PROXY: proxy.url, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [], has_more: false });
    expect(proxy.seen).toEqual([`POST ${sandboxHost()}`, `GET ${sandboxHost()}`]);
  });

  it('sandbox trigger goes through the proxy too, and around it with NO_PROXY', async () => {
    const env = { ...NO_PROXY_ENV, WHSVC_BASE_URL: sandbox.info.base_url, HTTP_PROXY: proxy.url };
    const through = await runCli(['sandbox', 'trigger', 'invoice.paid'], { env });
    expect(through.code, through.stderr).toBe(0);
    expect(proxy.seen).toEqual([`POST ${sandboxHost()}`]);
    const around = await runCli(['sandbox', 'trigger', 'invoice.paid'], { env: { ...env, NO_PROXY: '127.0.0.1' } });
    expect(around.code, around.stderr).toBe(0);
    expect(proxy.seen).toHaveLength(1);
  });

  it('lower-case http_proxy works too', async () => {
    const result = await list(sandbox.info.base_url, { http_proxy: proxy.url, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(result.code, result.stderr).toBe(0);
    expect(proxy.seen.length).toBe(2);
  });

  it('HTTPS_PROXY: an https service is reached through a CONNECT tunnel, its private CA trusted through NODE_EXTRA_CA_CERTS', async () => {
    const result = await list(tls.url, { HTTPS_PROXY: proxy.url, NODE_EXTRA_CA_CERTS: tls.caFile, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [] });
    expect(proxy.seen.length).toBeGreaterThan(0);
    expect(new Set(proxy.seen)).toEqual(new Set([`CONNECT ${tlsHost()}`]));
  });

  it('NODE_EXTRA_CA_CERTS works without a proxy; without it the certificate is refused in one line', async () => {
    const trusted = await list(tls.url, { NODE_EXTRA_CA_CERTS: tls.caFile, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(trusted.code, trusted.stderr).toBe(0);
    const untrusted = await list(tls.url, { NODE_EXTRA_CA_CERTS: undefined, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(untrusted.code).toBe(1);
    expect(untrusted.stderr).toMatch(/^whsvc: cannot reach localhost:\d+: the server's certificate is not trusted .*NODE_EXTRA_CA_CERTS\n/);
    expect(untrusted.stderr).not.toMatch(/\n\s+at /);
    expect(proxy.seen).toEqual([]);
  });

  it('NO_PROXY naming the host: neither http nor https goes through the proxy', async () => {
    const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url, NO_PROXY: '127.0.0.1,localhost', NODE_EXTRA_CA_CERTS: tls.caFile };
    const plain = await list(sandbox.info.base_url, { ...env, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    const secure = await list(tls.url, { ...env, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(plain.code, plain.stderr).toBe(0);
    expect(secure.code, secure.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that is down: one line naming it, never its credentials, exit 1', async () => {
    const down = `http://alice:pr0xyPa55@127.0.0.1:${await closedPort()}`;
    const result = await list(sandbox.info.base_url, { HTTP_PROXY: down, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) });
    expect(result.code).toBe(1);
    const [first, hint, jsonLine, ...rest] = result.stderr.trimEnd().split('\n');
    expect(first).toMatch(/^whsvc: cannot reach the proxy http:\/\/127\.0\.0\.1:\d+: connection refused$/);
    expect(hint).toMatch(/^hint: .*NO_PROXY/);
    expect(JSON.parse(jsonLine!).error.message).toMatch(/^cannot reach the proxy http:\/\/127\.0\.0\.1:\d+/);
    expect(rest).toEqual([]);
    expect(result.stderr).not.toContain('pr0xyPa55');
    expect(result.stderr).not.toContain('alice');
  });

  it('--debug says a proxy is in use, without its credentials', async () => {
    const withCredentials = proxy.url.replace('http://', 'http://bob:s3cretProxy@');
    const result = await list(sandbox.info.base_url, { HTTP_PROXY: withCredentials, WHSVC_CONFIG_DIR: mkdtempSync(join(configDir, 'c-')) }, ['--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`proxy (undici EnvHttpProxyAgent): http ${proxy.url}`);
    expect(result.stderr).not.toContain('s3cretProxy');
    expect(result.stderr).not.toContain('bob');
  });
});
