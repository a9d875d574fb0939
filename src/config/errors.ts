/** A config file that cannot be read, written or locked: one line for the user, and what to do about it. */
export class ConfigError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
  ) {
    super(message);
  }
}
