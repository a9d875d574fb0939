import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import { postDelivery } from '../helpers/delivery.js';
import { getToken, postEvent, postWebhook } from '../helpers/http.js';
import { runInProcess, startListenInProcess, startSandboxInProcess, type SandboxInProcess } from '../helpers/in-process.js';
import {
  closedPort,
  type ForwardProxy,
  NO_PROXY_ENV,
  PROXIED_HOST,
  startForwardProxy,
  startTlsFront,
  type TlsFront,
  trustInThisProcess,
} from '../helpers/proxy.js';
import { type Receiver, startReceiver } from '../helpers/receiver.js';

// The proxy variables of the run's environment, in-process. The private CA of the TLS fronts is trusted by this
// process (trustInThisProcess); that NODE_EXTRA_CA_CERTS makes a process trust it is test/e2e/proxy.test.ts's.

let sandbox: SandboxInProcess;
let proxy: ForwardProxy;
let tls: TlsFront;
let configDir: string;
const undo: Array<() => void> = [];

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  [proxy, tls] = await Promise.all([startForwardProxy(), startTlsFront(sandbox.info.base_url)]);
  undo.push(trustInThisProcess(tls.caFile));
  configDir = mkdtempSync(join(tmpdir(), 'whsvc-proxy-'));
});

afterAll(async () => {
  for (const step of undo.splice(0).reverse()) step();
  await Promise.all([sandbox?.stop(), proxy?.close(), tls?.close()]);
  rmSync(configDir, { recursive: true, force: true });
});

beforeEach(() => {
  proxy.seen.length = 0;
});

/** `webhooks list --json` with the sandbox's client from the environment, at `baseUrl`, with a config of its own. */
function list(baseUrl: string, env: Record<string, string | undefined>, extra: string[] = []) {
  return runInProcess(['webhooks', 'list', '--json', ...extra], {
    env: { ...NO_PROXY_ENV, ...sandboxEnv(sandbox.info, mkdtempSync(join(configDir, 'c-'))), WHSVC_BASE_URL: baseUrl, ...env },
  });
}

const proxiedHost = () => new URL(tls.proxiedUrl).host;

describe('proxies from the environment, for hosts other than this machine', () => {
  it('lower-case https_proxy works too, and HTTP_PROXY stands in for https when HTTPS_PROXY is not set', async () => {
    const lower = await list(tls.proxiedUrl, { https_proxy: proxy.url });
    expect(lower.code, lower.stderr).toBe(0);
    const fallback = await list(tls.proxiedUrl, { HTTP_PROXY: proxy.url });
    expect(fallback.code, fallback.stderr).toBe(0);
    expect(proxy.seen.filter((seen) => seen === `CONNECT ${proxiedHost()}`).length).toBeGreaterThanOrEqual(2);
  });

  it('NO_PROXY naming the host: the request goes around the proxy (here to a name nothing resolves)', async () => {
    const result = await list(tls.proxiedUrl, { HTTPS_PROXY: proxy.url, NO_PROXY: PROXIED_HOST });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^whsvc: cannot resolve the host ${PROXIED_HOST}\n`));
    expect(proxy.seen).toEqual([]);
  });

  it('a proxy that is down: one line naming it, never its credentials, exit 1', async () => {
    const down = `http://alice:pr0xyPa55@127.0.0.1:${await closedPort()}`;
    const result = await list(tls.proxiedUrl, { HTTPS_PROXY: down });
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
    const result = await list(sandbox.info.base_url, { HTTP_PROXY: withCredentials }, ['--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain(`proxy (undici EnvHttpProxyAgent): http ${proxy.url}`);
    expect(result.stderr).not.toContain('s3cretProxy');
    expect(result.stderr).not.toContain('bob');
  });

  it('HTTPS_PROXY=user:pass@host:port, without a scheme, is read as curl reads it (http://); --debug never prints its password', async () => {
    const schemeless = proxy.url.replace('http://', 'carol:pr0xyS3cret@');
    const result = await list(tls.proxiedUrl, { HTTPS_PROXY: schemeless }, ['--debug']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ data: [] });
    expect(proxy.seen).toContain(`CONNECT ${proxiedHost()}`);
    expect(result.stderr).toContain(`https ${proxy.url},`);
    expect(result.stderr).not.toContain('pr0xyS3cret');
    expect(result.stderr).not.toContain('carol');
  });
});

describe('this machine is always reached directly, whatever the proxy variables say', () => {
  it('the token request and the API call to a sandbox on 127.0.0.1 or localhost never go through the proxy', async () => {
    const env = { HTTP_PROXY: proxy.url, HTTPS_PROXY: proxy.url };
    const [numeric, named, qualified] = await Promise.all([
      list(sandbox.info.base_url, env),
      list(sandbox.info.base_url.replace('127.0.0.1', 'localhost'), env),
      // A fully qualified name, its final dot kept: still this machine.
      list(sandbox.info.base_url.replace('127.0.0.1', 'localhost.'), env),
    ]);
    expect(qualified.code, qualified.stderr).toBe(0);
    expect(numeric.code, numeric.stderr).toBe(0);
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(numeric.stdout)).toMatchObject({ data: [], has_more: false });
    expect(proxy.seen).toEqual([]);
  });

  it('sandbox trigger goes directly, and so does an https service on localhost', async () => {
    const trigger = await runInProcess(['sandbox', 'trigger', 'invoice.paid'], {
      env: { ...NO_PROXY_ENV, WHSVC_BASE_URL: sandbox.info.base_url, HTTP_PROXY: proxy.url },
    });
    expect(trigger.code, trigger.stderr).toBe(0);
    const secure = await list(tls.url, { HTTPS_PROXY: proxy.url });
    expect(secure.code, secure.stderr).toBe(0);
    expect(proxy.seen).toEqual([]);
  });

  it('listen --forward-to an app on 127.0.0.1 reaches it directly', async () => {
    const app = await startReceiver(() => 200);
    const listener = await startListenInProcess(['--secret', 'whsec_proxy', '--forward-to', `${app.url}/app`, '--count', '1'], {
      env: { HTTP_PROXY: proxy.url },
    });
    try {
      const answer = await postDelivery(listener.url, 'whsec_proxy', 'dlv_proxy1');
      expect(answer.status).toBe(200);
      await app.waitFor(1);
      expect(await listener.exit).toBe(0);
      expect(listener.stdout()).toContain('app 200');
      expect(proxy.seen).toEqual([]);
    } finally {
      await listener.stop('SIGTERM');
      await app.close();
    }
  });

  it("the sandbox's deliveries: to another host through the proxy, to this machine directly", async () => {
    const receiver: Receiver = await startReceiver(() => 200);
    const front = await startTlsFront(receiver.url);
    undo.push(trustInThisProcess(front.caFile));
    const proxied = await startSandboxInProcess(['--quiet'], { env: { HTTPS_PROXY: proxy.url, HTTP_PROXY: proxy.url } });
    try {
      const { base_url: baseUrl, client_id: clientId, client_secret: clientSecret } = proxied.info;
      const token = await getToken(baseUrl, clientId, clientSecret);
      for (const url of [`${front.proxiedUrl}/elsewhere`, `${receiver.url}/here`]) await postWebhook(baseUrl, token, url);
      proxy.seen.length = 0;
      await postEvent(baseUrl);
      const arrived = await receiver.waitFor(2);
      expect(arrived.map((request) => request.path).sort()).toEqual(['/elsewhere', '/here']);
      expect(proxy.seen).toEqual([`CONNECT ${new URL(front.proxiedUrl).host}`]);
      // Its pools, the proxy's and this machine's, closed on the way out (closing them once called itself for good).
      expect(await proxied.stop()).toBe(0);
    } finally {
      await Promise.all([proxied.stop(), front.close(), receiver.close()]);
    }
  });
});
