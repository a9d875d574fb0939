import { Option } from '@commander-js/extra-typings';
import { duration } from './parse.js';

/** --max-silence, for the commands that run until stopped (listen, deliveries tail). */
export const maxSilenceOption = (heard: string) =>
  new Option('--max-silence <duration>', `exit 6 after this long (10m, 1h) with ${heard}, so that a supervisor starts it again`).argParser(
    duration(7 * 86_400_000, 1000),
  );

/**
 * The watch behind --max-silence: `onSilent` is called once `ms` pass
 * without a call to heard(), counted from its start, or from the first heard()
 * when it starts `armed: false` (a tail's first poll may catch up for longer
 * than the limit). Without a limit it does nothing.
 */
export class SilenceWatch {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ms: number | undefined,
    private readonly onSilent: () => void,
    armed = true,
  ) {
    if (armed) this.heard();
  }

  heard(): void {
    if (this.ms === undefined) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onSilent, this.ms);
  }

  stop(): void {
    clearTimeout(this.timer);
  }
}
