import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sandboxEnv } from '../helpers/cli.js';
import {
  inProcessCliWith,
  startInProcess,
  startListenInProcess,
  startSandboxInProcess,
  startTailInProcess,
  type SandboxInProcess,
} from '../helpers/in-process.js';

// One wording for an attempt that got no HTTP answer, with its reason, in every command that says it (the README's
// words: `no answer: connection refused`), and durations in one form (`10 s`), the sandbox's banner included.

const REFUSED = 'no answer: connection refused';

let sandbox: SandboxInProcess;
let workDir: string;
/** An address where nothing listens: every send there is refused. */
let closed: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--retry-base-ms', '60000', '--max-attempts', '5']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-words-'));
  // Port 1 (tcpmux) of loopback, where nothing listens: a port freed by a server of this test could be taken again by
  // another test's server meanwhile, and answer.
  closed = 'http://127.0.0.1:1/hooks';
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));

describe('no answer, and why, said one way', () => {
  it('by test, retry, recover, show, send, tail, listen forwarding and the sandbox log', async () => {
    const webhook = JSON.parse((await cli(['webhooks', 'create', '--url', closed, '--events', 'invoice.paid', '--json'])).stdout);
    const tail = await startTailInProcess(['--webhook', webhook.id, '--interval', '200ms', '--since', '1h'], {
      env: sandboxEnv(sandbox.info, join(workDir, 'config')),
    });
    const test = await cli(['test', webhook.id]);
    expect(test.code).toBe(1);
    expect(test.stderr).toContain(`(${REFUSED})`);
    expect(test.stdout).toMatch(new RegExp(`^response +${REFUSED}$`, 'm'));
    const delivery = JSON.parse((await cli(['deliveries', 'list', webhook.id, '--json'])).stdout).data[0].id;

    const retry = await cli(['deliveries', 'retry', delivery]);
    expect(retry.code).toBe(1);
    expect(retry.stderr).toContain(`(${REFUSED})`);
    expect(retry.stdout).toMatch(new RegExp(`^response +${REFUSED}$`, 'm'));

    const recover = await cli(['deliveries', 'recover', '--yes', '--verbose']);
    expect(recover.code).toBe(1);
    expect(recover.stdout).toContain(`Failed again, by reason: 1 ${REFUSED}`);
    expect(recover.stderr).toContain(`failed again (${REFUSED})`);

    const show = await cli(['deliveries', 'show', delivery]);
    expect(show.stdout).toMatch(new RegExp(`^response +${REFUSED}$`, 'm'));

    const send = await cli(['send', closed]);
    expect(send.code).toBe(1);
    expect(send.stdout).toMatch(new RegExp(`^answer +${REFUSED}$`, 'm'));

    // The log's pages carry no reason: tail's CODE column says the code's word alone, as every table does.
    await tail.until(() => / no answer {2}dlv_/.test(tail.stdout()), 'an attempt said to have no answer');
    expect(await tail.stop('SIGTERM')).toBe(0);
    expect(sandbox.stderr()).toContain(`  ${REFUSED}  (${delivery} #1)`);
  });

  it('by listen, for an app it forwards to that is not there', async () => {
    const secret = join(workDir, 'whsec.txt');
    writeFileSync(secret, 'whsec_words_test');
    const listen = await startListenInProcess(['--forward-to', closed, '--secret-file', secret]);
    await cli(['send', listen.url, '--secret-file', secret]);
    await listen.until(() => listen.stdout().includes('app:'), "the forward's outcome");
    expect(listen.stdout()).toContain(`app: ${REFUSED}`);
    expect(await listen.stop('SIGTERM')).toBe(0);
  });
});

describe('durations in one form', () => {
  it("the sandbox's banner says its waits as every other line does: 5 s, 10 s", async () => {
    const banner = startInProcess(['sandbox', 'start', '--port', '0', '--retry-base-ms', '5000']);
    await banner.until(() => banner.stderr().includes('a send not answered'), 'its banner');
    expect(banner.stderr()).toMatch(/first after 5 s, doubling/);
    expect(banner.stderr()).toMatch(/a send not answered within 10 s fails/);
    expect(await banner.stop('SIGTERM')).toBe(0);
  });
});
