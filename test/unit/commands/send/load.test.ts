import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { TransportRequest, TransportResponse } from '../../../../src/api/transport.js';
import { CliError } from '../../../../src/cli/errors.js';
import { PrintedJson } from '../../../../src/cli/json-output.js';
import { type Load, type LoadDeps, runLoad } from '../../../../src/commands/send/load.js';
import { Collector, fakeStdin, ScriptedPrompter, type ScriptedAnswer } from '../../../helpers/fake-deps.js';
import { ManualClock } from '../../../helpers/manual-clock.js';

// send --rate's run with a transport of the test's (nothing leaves this process, whatever the URL) and a manual clock:
// the question before another machine, the progress line on a terminal, the report's words.

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'whsvc-send-load-'));
  writeFileSync(join(dir, 'whsec.txt'), 'whsec_load_unit\n');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const LOAD: Load = { perSecond: 10, durationMs: 2000, spikes: [], repeatShare: 0, maxInFlight: 100, yes: false };

function setup(url: string, options: { load?: Partial<Load>; terminal?: boolean; canPrompt?: boolean; answers?: ScriptedAnswer[] } = {}) {
  const sent: TransportRequest[] = [];
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 9, 0, 0));
  const stdout = new Collector();
  const stderr = new Collector(options.terminal === true, 120);
  const prompter = new ScriptedPrompter(options.answers);
  const deps: LoadDeps = {
    stdin: fakeStdin(),
    stdout,
    stderr,
    env: {},
    jsonOut: new PrintedJson(stdout),
    transport: async (request): Promise<TransportResponse> => {
      sent.push(request);
      return { status: 200, headers: {}, text: 'ok' };
    },
    timers: clock,
    elapsedMs: () => clock.now(),
    prompter,
    canPrompt: options.canPrompt ?? false,
  };
  const start = () =>
    runLoad(
      { url, load: { ...LOAD, ...options.load }, secretFile: join(dir, 'whsec.txt'), platformName: 'Service', timeoutMs: 10_000, json: false, color: false },
      deps,
    );
  return { sent, clock, stdout, stderr, prompter, start };
}

describe('send --rate: to another machine', () => {
  it('off a terminal, refuses without --yes: exit 2, nothing sent', async () => {
    const s = setup('https://hooks.example.com/in');
    const error = await s.start().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CliError);
    expect(error).toMatchObject({
      exitCode: 2,
      message: '20 deliveries over 2 s to hooks.example.com, which is not this machine, needs --yes (prompts are off: no terminal, --no-input or CI=true)',
      hint: 'a load goes to another machine only when asked for',
    });
    expect(s.sent).toEqual([]);
  });

  it('on a terminal, asks first: no sends nothing (exit 1), yes sends', async () => {
    const no = setup('https://hooks.example.com/in', { canPrompt: true, answers: [{ kind: 'confirm', answer: false }] });
    await expect(no.start()).rejects.toMatchObject({ message: 'nothing sent', exitCode: 1 });
    expect(no.prompter.asked).toEqual([{ kind: 'confirm', message: 'Send 20 deliveries over 2 s to hooks.example.com? It is not this machine.' }]);
    expect(no.sent).toEqual([]);

    const yes = setup('https://hooks.example.com/in', { canPrompt: true, answers: [{ kind: 'confirm', answer: true }] });
    const exit = yes.start();
    await yes.clock.advance(2000);
    expect(await exit).toBe(0);
    expect(yes.sent).toHaveLength(20);
    expect(yes.sent[0]!.url.href).toBe('https://hooks.example.com/in');
    yes.prompter.assertDone();
  });

  it('--yes sends without a question; this machine is never asked about', async () => {
    for (const [url, load] of [
      ['https://hooks.example.com/in', { yes: true }],
      ['http://localhost:3000/hooks', {}],
      ['http://127.0.0.1:3000/hooks', {}],
    ] as const) {
      const s = setup(url, { load, canPrompt: true });
      const exit = s.start();
      await s.clock.advance(2000);
      expect(await exit, url).toBe(0);
      expect(s.sent, url).toHaveLength(20);
      s.prompter.assertDone();
    }
  });
});

describe('send --rate: on a terminal', () => {
  it('draws a progress line on stderr each second: where the run is, sent, the last second’s rate, failures, requests open', async () => {
    const s = setup('http://127.0.0.1:3000/hooks', { terminal: true, load: { perSecond: 10, durationMs: 3000 } });
    const exit = s.start();
    await s.clock.advance(1000);
    expect(s.stderr.text).toBe('\r\u001b[2K1 s of 3 s · 10 sent · 10/s · 0 failed · 0 open');
    await s.clock.advance(1000);
    expect(s.stderr.text.endsWith('\r\u001b[2K2 s of 3 s · 20 sent · 10/s · 0 failed · 0 open')).toBe(true);
    await s.clock.advance(1000);
    expect(await exit).toBe(0);
    // Wiped at the end: the report is on stdout.
    expect(s.stderr.text.endsWith('\r\u001b[2K')).toBe(true);
    expect(s.stdout.text).toMatch(/^result +0 of 30 failed \(anything but a 2xx within 10 s\)$/m);
    expect(s.clock.pendingTimers).toBe(0);
  });

  it('draws none in a pipe', async () => {
    const s = setup('http://127.0.0.1:3000/hooks', { load: { perSecond: 10, durationMs: 3000 } });
    const exit = s.start();
    await s.clock.advance(3000);
    expect(await exit).toBe(0);
    expect(s.stderr.text).toBe('');
  });
});
