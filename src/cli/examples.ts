/** The "Examples:" block every command's --help ends with (a test walks them all). */
export function examples(...lines: string[]): string {
  return `\n${lines.length === 1 ? 'Example' : 'Examples'}:\n${lines.map((line) => `  ${line}`).join('\n')}`;
}
