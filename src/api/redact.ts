const SECRET_KEYS = ['client_secret', 'access_token', 'signing_secret', 'refresh_token'];

/** A body or header block with every secret value replaced, for --debug. */
export function redactText(text: string): string {
  let out = text;
  for (const key of SECRET_KEYS) {
    out = out
      .replace(new RegExp(`("${key}"\\s*:\\s*)"(?:[^"\\\\]|\\\\.)*"`, 'g'), '$1"[redacted]"')
      .replace(new RegExp(`(\\b${key}=)[^&\\s]*`, 'g'), '$1[redacted]');
  }
  return out;
}

export function redactHeaders(headers: Record<string, string | string[] | undefined>): string {
  return Object.entries(headers)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => {
      const shown = /^(authorization|cookie|set-cookie)$/i.test(name) ? '[redacted]' : String(value);
      return `${name}: ${shown}`;
    })
    .join('\n');
}
