/** Edit distance where swapping two neighbours counts as one edit (optimal string alignment). */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The closest of `choices` to `input`, when it is close enough to be a likely typo, or the one choice it begins. */
export function closest(input: string, choices: readonly string[]): string | undefined {
  const lower = input.toLowerCase();
  const extended = choices.filter((choice) => lower.length >= 2 && choice.toLowerCase().startsWith(lower) && choice.length > lower.length);
  if (extended.length === 1) return extended[0];
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const choice of choices) {
    const d = distance(input.toLowerCase(), choice.toLowerCase());
    if (d < bestDistance) {
      best = choice;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 4)) ? best : undefined;
}

/** "…; did you mean y?" for a near miss, else nothing. */
export function didYouMean(input: string, choices: readonly string[]): string {
  const guess = closest(input, choices);
  return guess ? `; did you mean ${guess}?` : '';
}

/** "x is not one of …; did you mean y?" as a usage message. */
export function notOneOf(what: string, input: string, choices: readonly string[]): string {
  return `${what} ${JSON.stringify(input)} is not one of ${choices.join(', ')}${didYouMean(input, choices)}`;
}
