/** Where `sandbox start` listens by default. */
export const DEFAULT_SANDBOX_PORT = 4010;
/** Where the CLI goes when no base URL is given: the sandbox's default address. */
export const DEFAULT_BASE_URL = `http://127.0.0.1:${DEFAULT_SANDBOX_PORT}`;
export const DEFAULT_TIMEOUT_S = 30;
