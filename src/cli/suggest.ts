function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest of `choices` to `input`, when it is close enough to be a likely typo. */
export function closest(input: string, choices: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const choice of choices) {
    const d = distance(input.toLowerCase(), choice.toLowerCase());
    if (d < bestDistance) {
      best = choice;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

/** "x is not one of …; did you mean y?" as a usage message. */
export function notOneOf(what: string, input: string, choices: readonly string[]): string {
  const guess = closest(input, choices);
  return `${what} ${JSON.stringify(input)} is not one of ${choices.join(', ')}${guess ? `; did you mean ${guess}?` : ''}`;
}
