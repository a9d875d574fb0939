import { Argument, Command, type CommandUnknownOpts, InvalidArgumentError, Option } from '@commander-js/extra-typings';
import { ApiError } from '../../api/errors.js';
import type { Page } from '../../api/shapes.js';
import type { TransportResponse } from '../../api/transport.js';
import { addVerbs, apiAction } from '../../cli/actions.js';
import type { CommandDeps } from '../../cli/context.js';
import { usageError } from '../../cli/errors.js';
import { examples } from '../../cli/examples.js';
import { writePages } from '../../cli/output.js';
import { collect } from '../../cli/parse.js';
import { readFileFlag } from '../../cli/stdin.js';
import { sanitizeBlock } from '../../render/text.js';
import { type FieldFlag, fieldsBody, fieldsQuery, header, requestPath } from './fields.js';
import { exactParse } from '../../exact-json.js';
import { laidOut } from '../../render/wrap.js';

/** Defines `api`. */
export function register(program: CommandUnknownOpts): void {
  addVerbs(program, command());
}

const method = (value: string): string => {
  if (!/^[A-Za-z]+$/.test(value)) throw new InvalidArgumentError('must be an HTTP method, such as GET, POST, PATCH or DELETE.');
  return value.toUpperCase();
};

export const command = (runF = run) =>
  new Command('api')
    .description("an authenticated request to any path of the service, as gh api: the profile's token, its answer as returned")
    .addArgument(new Argument('<path>', 'a path of the service (/v1/webhooks), or a URL at its address'))
    .addOption(
      new Option('-X, --method <method>', 'the HTTP method (default GET, or POST when fields or --input are given without --paginate)').argParser(method),
    )
    .addOption(new Option('-f, --raw-field <key=value>', 'a string field (repeatable); key[]=v for arrays, key[sub]=v for objects').argParser(collect(String)))
    .addOption(
      new Option('-F, --field <key=value>', 'a typed field: true, false, null, numbers, @FILE (- reads stdin); else a string').argParser(collect(String)),
    )
    .option('--input <file>', 'the request body, read from this file (- reads stdin); fields then go in the query')
    .addOption(new Option('-H, --header <name:value>', 'a request header (repeatable)').argParser(collect(header)))
    .option('--paginate', 'follow next_cursor: one envelope holding every page, streamed as it arrives (GET; fields go in the query)')
    .addHelpText(
      'after',
      examples(
        'whsvc api /v1/webhooks/webhook-events',
        'whsvc api /v1/webhooks --paginate --jq ".data[].url"',
        'whsvc api -X POST /v1/webhooks -f url=https://example.com/hooks -f "events[]=invoice.paid"',
        'whsvc api -X PATCH /v1/webhooks/wh_… -F active=false',
        'whsvc api -X DELETE /v1/webhooks/wh_…',
      ),
    )
    .action(
      apiAction((deps, path, o) =>
        runF(
          {
            path,
            method: o.method,
            fields: [...(o.rawField ?? []).map((text) => ({ typed: false, text })), ...(o.field ?? []).map((text) => ({ typed: true, text }))],
            input: o.input,
            headers: o.header ?? [],
            paginate: Boolean(o.paginate),
          },
          deps,
        ),
      ),
    );

export interface ApiOptions {
  path: string;
  method?: string | undefined;
  /** -f first, then -F, as given. */
  fields: FieldFlag[];
  input?: string | undefined;
  headers: Array<[string, string]>;
  paginate: boolean;
}

/** What is sent: method, path with its query, body and headers, all checked before the request. */
interface Request {
  method: string;
  path: string;
  body?: string | Uint8Array | undefined;
  headers: Record<string, string>;
}

export async function run(options: ApiOptions, deps: CommandDeps): Promise<number> {
  const request = await buildRequest(options, deps);
  const first = await send(deps, request);
  if (options.paginate) {
    const page = envelope(first);
    if (page) {
      await writePages<unknown>(
        { ...deps, json: true },
        {
          all: true,
          list: `GET ${request.path.replace(/\?.*$/s, '')}`,
          fetchPage: async (cursor) => (cursor === undefined ? page : nextPage(deps, request, cursor)),
          renderPage: () => '',
          empty: '',
          nextCommand: () => '',
        },
      );
      return 0;
    }
  }
  printAnswer(deps, first);
  return 0;
}

/** The request the flags describe, or a usage error (exit 2) before anything is sent. */
async function buildRequest(options: ApiOptions, deps: CommandDeps): Promise<Request> {
  let path = requestPath(options.path, deps.api.baseUrl);
  // --paginate reads a list: its fields are the query, as with -X GET.
  const method = options.method ?? (!options.paginate && (options.fields.length > 0 || options.input !== undefined) ? 'POST' : 'GET');
  if (options.paginate && method !== 'GET') throw usageError(`--paginate follows the pages of a list: it needs GET, not ${method}`);
  const files = await readAtFiles(options.fields, deps);
  const read = (file: string) => files.get(file)!;
  let body: string | Uint8Array | undefined;
  if (options.input !== undefined) {
    body = await readFileFlag('--input', options.input, deps.stdin);
    path = withQuery(path, fieldsQuery(options.fields, read));
  } else if (method === 'GET' || method === 'HEAD') {
    path = withQuery(path, fieldsQuery(options.fields, read));
  } else if (options.fields.length > 0) {
    body = JSON.stringify(fieldsBody(options.fields, read));
  }
  return { method, path, body, headers: Object.fromEntries(options.headers) };
}

/** The files that -F key=@FILE name, read once each (stdin for @-, which can be read once). */
async function readAtFiles(fields: FieldFlag[], deps: CommandDeps): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const field of fields) {
    const at = field.typed ? /^[^=]*=@(.*)$/s.exec(field.text)?.[1] : undefined;
    if (at === undefined || files.has(at)) continue;
    files.set(at, (await readFileFlag(`-F ${field.text.slice(0, field.text.indexOf('='))}=@`, at, deps.stdin)).toString('utf8'));
  }
  return files;
}

/** `path` with `pairs` added to its query. */
function withQuery(path: string, pairs: Array<[string, string]>): string {
  if (pairs.length === 0) return path;
  return `${path}${path.includes('?') ? '&' : '?'}${new URLSearchParams(pairs).toString()}`;
}

/** The request sent; an answer that is not a 2xx is an ApiError (exit code by its class: 404 is 5, 403 is 4). */
async function send(deps: CommandDeps, request: Request): Promise<TransportResponse> {
  const response = await deps.api.send(request.method, request.path, { body: request.body, headers: request.headers });
  if (response.status < 200 || response.status >= 300) throw deps.api.errorFor(request.method, request.path.replace(/\?.*$/s, ''), response);
  return response;
}

/** The answer as a page envelope (an object with a data array), or undefined when it is not one. */
function envelope(response: TransportResponse): Page<unknown> | undefined {
  try {
    const value = exactParse(response.text);
    return typeof value === 'object' && value !== null && Array.isArray((value as Page).data) ? (value as Page<unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** The page at `cursor`: the same request, its cursor set. */
async function nextPage(deps: CommandDeps, request: Request, cursor: string): Promise<Page<unknown>> {
  const url = new URL(request.path, 'http://path.invalid');
  url.searchParams.set('cursor', cursor);
  const response = await send(deps, { ...request, path: url.pathname + url.search });
  const page = envelope(response);
  if (!page)
    throw new ApiError(
      response.status,
      'unexpected_answer',
      `the service answered GET ${url.pathname} with something that is not a page (an object with a data array)`,
    );
  return page;
}

/** The signing secret an answer holds (a webhook created): its `signing_secret`, if a string. */
function signingSecretOf(json: unknown): string | undefined {
  const secret = typeof json === 'object' && json !== null ? (json as { signing_secret?: unknown }).signing_secret : undefined;
  return typeof secret === 'string' ? secret : undefined;
}

/**
 * The answer as returned, with a newline at its end. On a terminal a JSON
 * answer is indented, and a text answer has its control characters removed,
 * as every server value shown there; a pipe gets the bytes as they came.
 */
function printAnswer(deps: CommandDeps, response: TransportResponse): void {
  if (response.text === '') return;
  let json: unknown;
  try {
    json = exactParse(response.text);
  } catch {
    json = undefined;
  }
  const secret = signingSecretOf(json);
  // Masked from now on, as a created webhook's is: in jq's errors (which quote their input), and any error after.
  deps.api.addSecret(secret);
  // --json (--jq): the answer's own bytes, every digit kept, to print or to filter.
  if (deps.json && json !== undefined) {
    const shown = deps.jsonOut.text(response.text, secret);
    if (shown !== 'shown' && secret !== undefined) {
      // --jq failed on the one answer that holds the secret, or left it out: printed as returned, as without --jq, so
      // that it is not lost; the exit code is 1 (Shown).
      deps.jsonOut.unfiltered(response.text);
      const what = shown === 'failed' ? '--jq failed on an answer holding a signing secret' : "--jq's results leave out the answer's signing secret";
      deps.stderr.write(
        laidOut(deps.stderr, `whsvc: ${what}, which the service gives only once: the answer is printed as returned instead; save the secret now\n`),
      );
      return;
    }
  } else if (deps.stdout.isTTY) deps.stdout.write(`${json === undefined ? sanitizeBlock(response.text).replace(/\n?$/, '') : JSON.stringify(json, null, 2)}\n`);
  else deps.stdout.write(response.text.endsWith('\n') ? response.text : `${response.text}\n`);
  if (secret !== undefined) {
    deps.stderr.write(
      laidOut(
        deps.stderr,
        `${deps.errColors.yellow('!')} The answer holds the webhook's signing secret: the service gives it only this once. (whsvc webhooks create --secret-file, or webhooks apply --secret-dir, write it to a file instead.)\n`,
      ),
    );
  }
}
