import { Command } from '@commander-js/extra-typings';
import { action } from '../../cli/actions.js';
import { DEFAULT_BASE_URL } from '../../cli/defaults.js';
import { examples } from '../../cli/examples.js';
import { defaultTransport } from '../../api/transport.js';
import type { Io } from '../../cli/deps.js';
import { CliError, unreachableHint, usageError } from '../../cli/errors.js';
import { maxAnswerBytes } from '../../cli/parse.js';
import { notOneOf } from '../../cli/suggest.js';
import { EVENT_TYPES } from '../../protocol/catalog.js';
import { describeErrorBody } from '../../api/errors.js';
import { isLoopbackHost, TransportError } from '../../net.js';
import { ConfigStore } from '../../config/store.js';
import type { Transport, TransportResponse } from '../../api/transport.js';
import { triggerEvent } from '../../api/endpoints.js';
import type { TriggeredEvent } from '../../api/shapes.js';
import { counted, sanitize } from '../../render/text.js';
import { laidOut } from '../../render/wrap.js';

export const command = (runF = run) =>
  new Command('trigger')
    .description('make an event occur in a running sandbox (sandbox-only endpoint, outside /v1)')
    .argument('<event-type>', 'an event type of the catalog, e.g. invoice.paid')
    .option('--data <json>', 'fields to set in the payload, as a JSON object')
    .addHelpText('after', examples('whsvc sandbox trigger invoice.paid', `whsvc sandbox trigger invoice.paid --data '{"id":"inv_42"}'`))
    .action(
      action(async ({ io, globals }, eventType, o) =>
        runF(
          {
            eventType: knownEventType(eventType),
            data: dataObject(o.data),
            baseUrl: sandboxUrl(globals.baseUrl ?? sandboxOfProfile(io.env, globals.profile) ?? DEFAULT_BASE_URL),
            json: globals.json,
            maxAnswerBytes: maxAnswerBytes(globals, io.env),
          },
          { ...io, transport: defaultTransport(io.env) },
        ),
      ),
    );

/**
 * The profile's address when it is a sandbox's on this machine (`whsvc login --profile sandbox`, as the banner
 * suggests, on another port): a profile of a service elsewhere has no /_sandbox/events, so the default sandbox's
 * address stays the one tried then.
 */
function sandboxOfProfile(env: NodeJS.ProcessEnv, profileName: string): string | undefined {
  const baseUrl = ConfigStore.of(env).getProfile(profileName)?.base_url;
  if (baseUrl === undefined) return undefined;
  try {
    return isLoopbackHost(new URL(baseUrl).hostname) ? baseUrl : undefined;
  } catch {
    return undefined;
  }
}

/** An event type of the catalog, or a usage error with the nearest. */
function knownEventType(eventType: string): string {
  if (!EVENT_TYPES.includes(eventType)) throw usageError(notOneOf('event type', eventType, EVENT_TYPES));
  return eventType;
}

/** --data: the fields to set, as a JSON object. */
function dataObject(data: string | undefined): Record<string, unknown> | undefined {
  if (data === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    throw usageError('--data is not valid JSON', `for example: --data '{"amount":{"amount":500,"currency":"USD"}}'`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw usageError('--data must be a JSON object');
  return parsed as Record<string, unknown>;
}

/** The sandbox's address, as an http(s) URL. */
function sandboxUrl(baseUrl: string): URL {
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) throw usageError(`--base-url ${JSON.stringify(baseUrl)} is not an http(s) URL`);
  return url;
}

export interface SandboxTriggerOptions {
  eventType: string;
  /** The fields to set in the payload (--data). */
  data?: Record<string, unknown> | undefined;
  baseUrl: URL;
  json: boolean;
  /** The most of the sandbox's answer read (--max-answer-size). */
  maxAnswerBytes?: number | undefined;
}

export async function run(options: SandboxTriggerOptions, deps: Io & { transport: Transport }): Promise<number> {
  const url = options.baseUrl;
  let response: TransportResponse;
  try {
    response = await triggerEvent(deps.transport, url, { type: options.eventType, data: options.data }, options.maxAnswerBytes);
  } catch (error) {
    if (!(error instanceof TransportError)) throw error;
    throw new CliError(`cannot connect to ${url.host}: ${error.message}`, 1, unreachableHint(url.host));
  }
  const { text } = response;
  if (response.status < 200 || response.status >= 300) {
    const { message } = describeErrorBody(text, String(response.headers['content-type'] ?? ''));
    throw new CliError(`the sandbox refused the event (${response.status}): ${message ?? 'no reason given'}`);
  }
  if (options.json) {
    deps.jsonOut.text(text);
    return 0;
  }
  const result = JSON.parse(text) as TriggeredEvent;
  const count = result.deliveries.length;
  deps.stdout.write(
    laidOut(
      deps.stdout,
      `Triggered ${sanitize(result.type)} (${sanitize(result.id)}): ${count === 0 ? 'no active webhook is subscribed to it' : `${counted(count, 'delivery')} pending`}\n`,
    ),
  );
  for (const id of result.deliveries) deps.stdout.write(`  ${sanitize(id)}\n`);
  return 0;
}
