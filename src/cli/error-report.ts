import { ApiError, AuthError, NetworkError } from '../api/errors.js';
import { ConfigError } from '../config/errors.js';
import { FileError } from '../files/user-file.js';
import { CliError, ExitCode, unreachableHint } from './errors.js';

/**
 * How an error is told, whoever tells it: the one line (`whsvc: …` on stderr), its hint, the exit code of its class,
 * and for --json's error object its status, code and message (which leaves out what status and code say). runCli
 * writes it on stderr; `whsvc mcp` puts it in a tool result marked as an error.
 */
export interface ErrorReport {
  message: string;
  hint?: string | undefined;
  exitCode: number;
  status?: number | undefined;
  code?: string | undefined;
  jsonMessage: string;
}

/** What an error's words depend on: the profile in use (` --profile prod`, or nothing for the default) for the hints' commands. */
export interface Reporting {
  profile: string;
}

const report = (message: string, exitCode: number, hint?: string, status?: number, code?: string, jsonMessage = message): ErrorReport => ({
  message,
  hint,
  exitCode,
  status,
  code,
  jsonMessage,
});

/** The report of an error of whsvc's own kinds; undefined for any other (an unexpected error, or commander's, which runCli tells itself). */
export function errorReport(error: unknown, { profile }: Reporting): ErrorReport | undefined {
  if (error instanceof CliError) {
    return report(error.message, error.exitCode, error.hint, undefined, error.code ?? (error.exitCode === ExitCode.usage ? 'usage' : undefined));
  }
  if (error instanceof ConfigError) return report(error.message, ExitCode.failure, error.hint);
  if (error instanceof FileError) {
    return report(error.message, error.refused ? ExitCode.usage : ExitCode.failure, error.hint, undefined, error.refused ? 'usage' : undefined);
  }
  if (error instanceof AuthError) {
    return report(
      error.message,
      ExitCode.auth,
      error.hint ?? 'run `whsvc login`, or set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET',
      error.status,
      error.code ?? 'unauthorized',
    );
  }
  if (error instanceof NetworkError) {
    const hint = error.proxy ? 'check HTTPS_PROXY / HTTP_PROXY, or name the host in NO_PROXY to go around the proxy' : unreachableHint(error.host);
    return report(error.message, ExitCode.failure, hint);
  }
  if (error instanceof ApiError) return apiErrorReport(error, profile);
  return undefined;
}

function apiErrorReport(error: ApiError, profile: string): ErrorReport {
  const status = error.status;
  if (status === 403) {
    const scope = error.requiredScope ?? 'a scope the token lacks';
    const message = error.message.includes(scope)
      ? `permission denied: ${error.message}`
      : `permission denied: this needs the ${scope} scope (${error.message})`;
    return report(
      message,
      ExitCode.permission,
      // The profile in use, named: followed as written, the hint must not replace another profile's login. Each command
      // ends its clause: pasted, no word of the sentence follows it.
      `log in with a client that has ${scope}: whsvc login${profile} --client-id ID; the scope of this one: whsvc auth status${profile}`,
      403,
      error.code,
    );
  }
  const exit = status === 401 ? ExitCode.auth : status === 404 ? ExitCode.notFound : ExitCode.failure;
  return report(`${error.message} (HTTP ${status}${error.code ? ` ${error.code}` : ''})`, exit, error.hint, status, error.code, error.message);
}
