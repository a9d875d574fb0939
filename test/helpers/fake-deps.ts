import { EventEmitter } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MockAgent, type Interceptable } from 'undici';
import { ApiClient, type Credentials } from '../../src/api/client.js';
import type { TransportRequest } from '../../src/api/transport.js';
import { tokenIdentity, type CommandDeps } from '../../src/cli/context.js';
import type { InputStream, OutputStream } from '../../src/cli/deps.js';
import { Interrupts } from '../../src/cli/interrupt.js';
import type { Prompter } from '../../src/cli/prompter.js';
import { ConfigStore } from '../../src/config/store.js';
import { Chalk } from 'chalk';
import { PLAIN, colorLevel, colorsFrom, wantsColor } from '../../src/render/colors.js';
import { undiciTransport } from './undici-transport.js';
import { PrintedJson } from '../../src/cli/json-output.js';

export const ORIGIN = 'http://127.0.0.1:4010';
export const CLIENT_ID = 'cli_test_0123';
export const CLIENT_SECRET = 'cs_test_Sup3rS3cretValue_xyz';
/** 2025-01-15T12:00:00Z */
export const T0 = Date.UTC(2025, 0, 15, 12, 0, 0);

/** An in-memory stdout/stderr. */
export class Collector implements OutputStream {
  readonly chunks: string[] = [];
  constructor(
    public isTTY: boolean = false,
    public columns?: number,
  ) {}
  write(chunk: string): boolean {
    this.chunks.push(String(chunk));
    return true;
  }
  get text(): string {
    return this.chunks.join('');
  }
}

/** A stdin that yields the given text (in the given chunks). */
export function fakeStdin(text: string | string[] = '', isTTY = false): InputStream {
  const chunks = typeof text === 'string' ? (text === '' ? [] : [text]) : text;
  return {
    isTTY,
    async *[Symbol.asyncIterator]() {
      for (const chunk of chunks) yield Buffer.from(chunk, 'utf8');
    },
  };
}

export type ScriptedAnswer =
  | { kind: 'input'; message?: RegExp; answer: string }
  | { kind: 'password'; message?: RegExp; answer: string }
  | { kind: 'checkbox'; message?: RegExp; answer: string[] }
  | { kind: 'confirm'; message?: RegExp; answer: boolean };

/**
 * A Prompter that gives the test's answers in order. An unexpected question
 * (none left, another kind, a message that does not match, an answer the
 * command's own validator rejects) throws and is remembered, so that the
 * test fails even if the command swallows the error.
 */
export class ScriptedPrompter implements Prompter {
  readonly asked: Array<{ kind: string; message: string; choices?: Array<{ name: string; value: string }> }> = [];
  readonly problems: string[] = [];
  private readonly script: ScriptedAnswer[];

  constructor(script: ScriptedAnswer[] = []) {
    this.script = [...script];
  }

  private next<K extends ScriptedAnswer['kind']>(kind: K, message: string): Extract<ScriptedAnswer, { kind: K }> {
    const step = this.script.shift();
    if (!step || step.kind !== kind || (step.message && !step.message.test(message))) {
      const problem = `unexpected ${kind} question ${JSON.stringify(message)} (scripted next: ${step ? `${step.kind} ${step.message ?? ''}` : 'nothing'})`;
      this.problems.push(problem);
      throw new Error(problem);
    }
    return step as Extract<ScriptedAnswer, { kind: K }>;
  }

  async input(message: string, validate?: (value: string) => true | string): Promise<string> {
    this.asked.push({ kind: 'input', message });
    const { answer } = this.next('input', message);
    const verdict = validate ? validate(answer) : true;
    if (verdict !== true) {
      const problem = `the command's validator rejected the scripted answer ${JSON.stringify(answer)}: ${verdict}`;
      this.problems.push(problem);
      throw new Error(problem);
    }
    return answer;
  }

  async password(message: string): Promise<string> {
    this.asked.push({ kind: 'password', message });
    return this.next('password', message).answer;
  }

  async checkbox(message: string, choices: Array<{ name: string; value: string }>): Promise<string[]> {
    this.asked.push({ kind: 'checkbox', message, choices });
    const { answer } = this.next('checkbox', message);
    for (const value of answer) {
      if (!choices.some((c) => c.value === value)) {
        const problem = `scripted checkbox answer ${value} is not among the choices offered`;
        this.problems.push(problem);
        throw new Error(problem);
      }
    }
    return answer;
  }

  async confirm(message: string): Promise<boolean> {
    this.asked.push({ kind: 'confirm', message });
    return this.next('confirm', message).answer;
  }

  /** Every scripted answer was asked for, and nothing else was. */
  assertDone(): void {
    if (this.problems.length > 0) throw new Error(`prompter: ${this.problems.join('; ')}`);
    if (this.script.length > 0) throw new Error(`prompter: ${this.script.length} scripted answer(s) never asked for: ${JSON.stringify(this.script)}`);
  }
}

export interface FakeDepsOptions {
  json?: boolean;
  canPrompt?: boolean;
  stdoutTTY?: boolean;
  /** The terminal's width when stdoutTTY. */
  stdoutColumns?: number;
  stderrTTY?: boolean;
  stdin?: string | string[];
  stdinTTY?: boolean;
  env?: NodeJS.ProcessEnv;
  answers?: ScriptedAnswer[];
  /** Start of the fake clock (epoch ms); move it with `clock.now = …`. */
  now?: number;
  /** The credentials of deps.api; null for none (not logged in). */
  credentials?: Credentials | null;
  credentialSource?: CommandDeps['credentialSource'];
  profileName?: string;
  /** Give deps.api the config store's token cache of the profile (as buildDeps does). */
  tokenCache?: boolean;
  /** Collect the client's --debug text in `debugLog`. */
  debug?: boolean;
  timeoutMs?: number;
  /** The client's --max-answer-size, in bytes (small ones test the limit without large bodies). */
  maxAnswerBytes?: number;
}

/** What a test's own ApiClient differs in (fake.client). */
interface ClientOptions {
  credentials?: Credentials | undefined;
  withCache?: boolean;
  baseUrl?: string;
  sleep?: (ms: number) => Promise<void>;
  /** Other secrets in force (a proxy's credentials). */
  secrets?: string[];
}

export interface FakeDeps {
  deps: CommandDeps;
  stdout: Collector;
  stderr: Collector;
  agent: MockAgent;
  /** The mock dispatcher of ORIGIN: `mock.intercept({ path, method }).reply(…)`. */
  mock: Interceptable;
  configDir: string;
  clock: { now: number };
  /** Every ms the client was asked to sleep (Retry-After). */
  sleeps: number[];
  notices: string[];
  debugLog: string[];
  /** Every request the client sent, in order. */
  requests: TransportRequest[];
  prompter: ScriptedPrompter;
  /** A new ApiClient on the same mock and clock. */
  client(options?: ClientOptions): ApiClient;
}

/** What colorsFor gives a stream, without its lazy import. */
const colorsOf = (stream: OutputStream, env: NodeJS.ProcessEnv) => (wantsColor(stream, env, false) ? colorsFrom(new Chalk({ level: colorLevel(env) })) : PLAIN);

const live: Array<{ fake: FakeDeps; cleanup: () => void }> = [];

/** A CommandDeps made of fakes: streams in memory, config in a fresh temp dir, HTTP through a MockAgent. */
export function fakeDeps(options: FakeDepsOptions = {}): FakeDeps {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const mock = agent.get<Interceptable>(ORIGIN);
  const configDir = mkdtempSync(join(tmpdir(), 'whsvc-unit-'));
  const config = new ConfigStore(configDir);
  const stdout = new Collector(options.stdoutTTY ?? false, options.stdoutColumns);
  const stderr = new Collector(options.stderrTTY ?? false);
  const env: NodeJS.ProcessEnv = { ...(options.env ?? {}) };
  const clock = { now: options.now ?? T0 };
  const sleeps: number[] = [];
  const notices: string[] = [];
  const debugLog: string[] = [];
  const requests: TransportRequest[] = [];
  const transport = undiciTransport(agent, { record: requests });
  const prompter = new ScriptedPrompter(options.answers);
  const profileName = options.profileName ?? 'default';
  const credentials = options.credentials === null ? undefined : (options.credentials ?? { clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });

  const client = (opts: ClientOptions = {}) => {
    const creds = 'credentials' in opts ? opts.credentials : credentials;
    const baseUrl = opts.baseUrl ?? ORIGIN;
    return new ApiClient({
      baseUrl,
      credentials: creds,
      tokenCache: opts.withCache && creds ? config.tokenCache(profileName, tokenIdentity(baseUrl, creds)) : undefined,
      transport,
      timeoutMs: options.timeoutMs ?? 5_000,
      maxAnswerBytes: options.maxAnswerBytes,
      now: () => clock.now,
      sleep:
        opts.sleep ??
        (async (ms) => {
          sleeps.push(ms);
        }),
      secrets: opts.secrets,
      debug: options.debug ? (text) => debugLog.push(text) : undefined,
      notice: (text) => notices.push(text),
      userAgent: 'whsvc/test',
    });
  };

  const api = client({ credentials, withCache: options.tokenCache ?? false });
  const deps: CommandDeps = {
    stdin: fakeStdin(options.stdin ?? '', options.stdinTTY ?? false),
    stdout,
    stderr,
    env,
    api,
    config,
    profileName,
    credentialSource: options.credentialSource ?? (credentials ? 'profile' : 'none'),
    colors: colorsOf(stdout, env),
    errColors: colorsOf(stderr, env),
    json: options.json ?? false,
    canPrompt: options.canPrompt ?? false,
    prompter,
    interrupts: new Interrupts(new EventEmitter(), stderr, () => {}),
    jsonOut: new PrintedJson(stdout),
    now: () => clock.now,
    serviceNow: () => api.serviceClock.now(),
    apiFor: (baseUrl, creds) => client({ credentials: creds, baseUrl }),
    clientId: credentials?.clientId,
  };

  const fake: FakeDeps = { deps, stdout, stderr, agent, mock, configDir, clock, sleeps, notices, debugLog, requests, prompter, client };
  live.push({ fake, cleanup: () => rmSync(configDir, { recursive: true, force: true }) });
  return fake;
}

/**
 * For afterEach: every interceptor was used (a request the code stopped
 * making fails the test), every scripted answer was asked; then the agents
 * are closed and the temp dirs removed, whatever happened.
 */
export async function finishFakeDeps(): Promise<void> {
  const all = live.splice(0);
  const failures: unknown[] = [];
  for (const { fake, cleanup } of all) {
    try {
      fake.agent.assertNoPendingInterceptors();
    } catch (error) {
      failures.push(error);
    }
    try {
      fake.prompter.assertDone();
    } catch (error) {
      failures.push(error);
    }
    await fake.agent.close().catch(() => undefined);
    cleanup();
  }
  if (failures.length > 0) throw failures[0];
}

/** Registers a token endpoint reply; returns the parsed bodies of the requests it answers. */
export function mockToken(
  mock: Interceptable,
  options: { token?: string; expiresIn?: number; scope?: string; status?: number; body?: unknown; times?: number } = {},
): Array<Record<string, unknown>> {
  const bodies: Array<Record<string, unknown>> = [];
  const scope = mock.intercept({ path: '/v1/oauth/token', method: 'POST' }).reply((opts) => {
    bodies.push(JSON.parse(String(opts.body)) as Record<string, unknown>);
    const status = options.status ?? 200;
    const body =
      options.body ??
      (status === 200
        ? {
            access_token: options.token ?? 'tok_test_1',
            token_type: 'Bearer',
            expires_in: options.expiresIn ?? 3600,
            ...(options.scope ? { scope: options.scope } : {}),
          }
        : { error: 'invalid_client', error_description: 'client authentication failed' });
    return { statusCode: status, data: JSON.stringify(body), responseOptions: { headers: { 'content-type': 'application/json' } } };
  });
  if (options.times) scope.times(options.times);
  return bodies;
}

/** A JSON reply for an interceptor. */
export const jsonReply = (statusCode: number, body: unknown, headers: Record<string, string> = {}) => ({
  statusCode,
  data: JSON.stringify(body),
  responseOptions: { headers: { 'content-type': 'application/json', ...headers } },
});

/** A reply callback for `.reply(…)` answering JSON. */
export const json =
  (statusCode: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    jsonReply(statusCode, body, headers);

/** The path of a request without its query string. */
export const pathOnly = (path: string) => path.split('?')[0]!;

/** The query of a request path. */
export const queryOf = (path: string) => new URLSearchParams(path.includes('?') ? path.slice(path.indexOf('?') + 1) : '');

export const CATALOG = {
  data: [
    { type: 'invoice.paid', module: 'invoicing', desc: 'An invoice was paid' },
    { type: 'invoice.created', module: 'invoicing', desc: 'An invoice was created' },
    { type: 'sales_order.created', module: 'sales', desc: 'A sales order was created' },
    { type: 'product.updated', module: 'catalog', desc: 'A product was updated' },
  ],
};

/** The catalog endpoint, answered once. */
export function mockCatalog(mock: Interceptable): void {
  mock.intercept({ path: '/v1/webhooks/webhook-events', method: 'GET' }).reply(200, JSON.stringify(CATALOG), {
    headers: { 'content-type': 'application/json' },
  });
}

/** A rejection's error, or a failure if the promise resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error & Record<string, unknown>> {
  try {
    const value = await promise;
    throw Object.assign(new Error(`expected a rejection, got ${JSON.stringify(value)}`), { __resolved: true });
  } catch (error) {
    if ((error as { __resolved?: boolean }).__resolved) throw error;
    return error as Error & Record<string, unknown>;
  }
}
