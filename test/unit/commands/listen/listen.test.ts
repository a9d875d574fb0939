import { Agent, request } from 'undici';
import { describe, expect, it } from 'vitest';
import { undiciTransport } from '../../../../src/api/transport.js';
import { forwardRoute } from '../../../../src/receiver/routes.js';
import { run } from '../../../../src/commands/listen/listen.js';
import { forwardLimitMs } from '../../../../src/receiver/receive.js';
import { sign } from '../../../../src/protocol/signature.js';
import { startEndlessServer } from '../../../helpers/endless.js';
import { Collector, fakeStdin } from '../../../helpers/fake-deps.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';

describe("listen --forward-to: the app's time", () => {
  it("is what is left of the sender's 10 s less half a second, so that listen's 502 reaches the sender before it hangs up", () => {
    expect(forwardLimitMs(0)).toBe(9_500);
    expect(forwardLimitMs(2_000)).toBe(7_500);
    // A request that took the whole limit to come still gets a moment to be forwarded.
    expect(forwardLimitMs(12_000)).toBe(100);
  });
});

describe('listen --forward-to, to an app that answers without end (over real connections)', () => {
  it("reads the app's answer up to its head: the app's status is the sender's answer, and the app's connection is closed", async () => {
    const app = await startEndlessServer({ status: 201, total: 64 * 1024 * 1024, contentType: 'text/plain' });
    const agent = new Agent();
    let stop: (code: number) => void = () => {};
    const lines: string[] = [];
    let lineCame: () => void = () => {};
    const stdout = {
      isTTY: false,
      write(chunk: string) {
        lines.push(...String(chunk).trimEnd().split('\n'));
        lineCame();
        return true;
      },
    };
    const nextLine = (count: number) => new Promise<void>((resolve) => (lineCame = () => lines.length >= count && resolve()));
    try {
      const listening = nextLine(1);
      const running = run(
        { port: 0, host: '127.0.0.1', secret: 'whsec_listen_unit', respondStatus: 200, forwardTo: [forwardRoute(app.url)], json: true, color: false },
        {
          stdin: fakeStdin(),
          stdout,
          stderr: new Collector(),
          jsonOut: new PrintedJson(stdout),
          env: {},
          stopRequested: () => new Promise((resolve) => (stop = resolve)),
          transport: undiciTransport(agent),
        },
      );
      await listening;
      const { url } = JSON.parse(lines[0]!) as { url: string };
      const received = nextLine(2);
      const sender = new Agent();
      const body = '{"id":"inv_1","event":"invoice.paid"}';
      const answer = await request(`${url}/hooks`, {
        method: 'POST',
        dispatcher: sender,
        headers: { 'content-type': 'application/json', 'x-service-event': 'invoice.paid', 'x-service-signature': sign('whsec_listen_unit', body) },
        body,
      });
      await answer.body.dump();
      await sender.close();
      await received;
      expect(answer.statusCode, lines[1]).toBe(201);
      expect(JSON.parse(lines[1]!)).toMatchObject({ status: 201, rule: 'forward', forward: { status: 201 } });
      expect(app.written()).toBeLessThan(64 * 1024 * 1024);
      await app.untilCutOff(1);
      stop(0);
      expect(await running).toBe(0);
    } finally {
      stop(0);
      await agent.destroy();
      await app.close();
    }
  });
});
