import { exactParse } from '../exact-json.js';
import { headerShownName } from '../protocol/headers.js';
import type { PaneLine } from './view.js';

// The parts of a delivery's pane that listen's screen and tail's share: key and value lines, its headers, its body
// pretty-printed, its fate across attempts.

/** Key and value lines, the values in one column, each continued under its value. */
export function pairLines(pairs: Array<[key: string, value: string, tone?: PaneLine['tone']]>): PaneLine[] {
  const width = Math.max(...pairs.map(([key]) => key.length)) + 2;
  return pairs.map(([key, value, tone]) => ({ text: `${key.padEnd(width)}${value}`, tone, hang: width }));
}

export const heading = (text: string): PaneLine => ({ text, tone: 'heading' });

/** Headers one a line, `Name: value`, in the order they came, their names in one case (headerShownName). */
export function headerLines(headers: Readonly<Record<string, string | string[] | undefined>>): PaneLine[] {
  return Object.entries(headers).flatMap(([name, value]) =>
    value === undefined ? [] : [{ text: `  ${headerShownName(name)}: ${Array.isArray(value) ? value.join(', ') : value}`, hang: 4 }],
  );
}

/** A body as a person reads it: JSON pretty-printed (its numbers exactly as sent), anything else as it is. */
export function bodyLines(body: string): PaneLine[] {
  let text = body;
  try {
    text = JSON.stringify(exactParse(body), null, 2);
  } catch {
    // not JSON: shown as it came
  }
  if (text === '') return [{ text: '  (empty)', tone: 'dim' }];
  return text.split('\n').map((line) => ({ text: `  ${line}` }));
}

/** One attempt of a delivery, as its fate says it. */
export interface FateStep {
  /** Its number (`#2`), or `?`. */
  attempt: string;
  /** When, as a time of day. */
  at: string;
  /** What came of it, in the words of the command's lines (`delivered 200`, `-> 500 (--fail-first: attempt 1 of 2)`). */
  outcome: string;
  good: boolean;
}

/** A delivery's fate across its attempts, first to last: one line each. The one home of these words on the screen. */
export function fateLines(steps: FateStep[]): PaneLine[] {
  if (steps.length === 0) return [{ text: '  (none seen)', tone: 'dim' }];
  return steps.map((step) => ({ text: `  #${step.attempt}  ${step.at}  ${step.outcome}`, tone: step.good ? 'good' : 'bad', hang: 4 }));
}
