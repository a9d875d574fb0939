/** Where the CLI goes when no base URL is given: the sandbox's default address. */
export const DEFAULT_BASE_URL = 'http://127.0.0.1:4010';
export const DEFAULT_TIMEOUT_S = 30;
