import { EventEmitter } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { ExitRequest, Interrupts } from '../../../src/cli/interrupt.js';
import { Collector } from '../../helpers/fake-deps.js';

function interruptsOn(signals = new EventEmitter()) {
  const ended: number[] = [];
  const stderr = new Collector();
  return { signals, stderr, ended, interrupts: new Interrupts(signals, stderr, (code) => ended.push(code)) };
}

describe('withSystemSignals (while jq holds the thread)', () => {
  it("takes whsvc's signal listeners away for the work and gives them back as they were: a once() listener still fires once", () => {
    const { signals, interrupts } = interruptsOn();
    const once = vi.fn();
    const always = vi.fn();
    signals.once('SIGTERM', once);
    signals.on('SIGTERM', always);
    const during = interrupts.withSystemSignals(() => signals.listenerCount('SIGTERM'));
    expect(during).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(2);
    signals.emit('SIGTERM', 'SIGTERM');
    signals.emit('SIGTERM', 'SIGTERM');
    expect(once).toHaveBeenCalledTimes(1);
    expect(always).toHaveBeenCalledTimes(2);
    expect(signals.listenerCount('SIGTERM')).toBe(1);
  });
});

describe('Interrupts: one per run, on the host signals', () => {
  it('Ctrl-C undoes what was registered, says so and ends the run with 130', () => {
    const { signals, stderr, ended, interrupts } = interruptsOn();
    const undone = vi.fn();
    interrupts.onInterrupt(undone);
    interrupts.install();
    signals.emit('SIGINT');
    expect(undone).toHaveBeenCalledTimes(1);
    expect(stderr.text).toBe('\nwhsvc: interrupted\n');
    expect(ended).toEqual([130]);
  });

  it('interrupt() from within the work also stops the work (a prompt answered with Ctrl-C)', () => {
    const { ended, interrupts } = interruptsOn();
    expect(() => interrupts.interrupt()).toThrow(ExitRequest);
    expect(ended).toEqual([130]);
  });

  it('a graceful command aborts at the first Ctrl-C and ends at the second', () => {
    const { signals, ended, interrupts } = interruptsOn();
    interrupts.install();
    const stop = interrupts.graceful();
    signals.emit('SIGINT');
    expect(stop.aborted).toBe(true);
    expect(ended).toEqual([]);
    signals.emit('SIGINT');
    expect(ended).toEqual([130]);
  });

  it('a command that runs until stopped: Ctrl-C is 130, SIGTERM a clean 0', async () => {
    const first = interruptsOn();
    first.interrupts.install();
    const byCtrlC = first.interrupts.stopRequested();
    first.signals.emit('SIGINT');
    await expect(byCtrlC).resolves.toBe(130);
    const second = interruptsOn();
    const byTerm = second.interrupts.stopRequested();
    second.signals.emit('SIGTERM');
    await expect(byTerm).resolves.toBe(0);
    expect(second.ended).toEqual([]);
  });

  it('two runs never share their state: a reader gone from one is not gone from the other', () => {
    const a = interruptsOn();
    const b = interruptsOn();
    a.interrupts.stdoutGone();
    expect(a.interrupts.stdoutWasClosed).toBe(true);
    expect(b.interrupts.stdoutWasClosed).toBe(false);
  });

  it('a run in-process takes every listener it put on the signals off at its end', () => {
    const { signals, interrupts } = interruptsOn();
    interrupts.install();
    void interrupts.stopRequested();
    signals.emit('SIGINT');
    interrupts.graceful();
    expect(signals.listenerCount('SIGINT') + signals.listenerCount('SIGTERM')).toBeGreaterThan(0);
    interrupts.uninstall();
    expect(signals.listenerCount('SIGINT')).toBe(0);
    expect(signals.listenerCount('SIGTERM')).toBe(0);
  });
});
