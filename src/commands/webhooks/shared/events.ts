/** Whether two lists of event types subscribe the same types: their order is no change (apply's plan, a rotation's twin, mcp's update). */
export const sameEvents = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && [...a].sort().join('\n') === [...b].sort().join('\n');
