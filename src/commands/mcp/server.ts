import { join, resolve } from 'node:path';
import type { McpServer, StandardSchemaWithJSON } from '@modelcontextprotocol/server';
import type * as z from 'zod';
import { sandboxClock } from '../../api/endpoints.js';
import { type ActionContext, explained } from '../../cli/actions.js';
import { buildDeps, type CommandDeps, resolveCredentials } from '../../cli/context.js';
import type { Io } from '../../cli/deps.js';
import type { Reporting } from '../../cli/error-report.js';
import { ConfigStore } from '../../config/store.js';
import { shellWord } from '../../render/text.js';
import { CapturedJson, errorResult, Secrets, toolResult } from './call.js';
import { type Offer, offered, toolsOf } from './catalog.js';
import { PlanBook } from './plans.js';
import { type AnyTool, argumentsOf, type ToolContext } from './tools.js';
import { HostTransport } from './transport.js';

// `whsvc mcp`: the tools that fit the run (catalog.ts offered), served over the host's stdin and stdout until the
// client goes away (exit 0), Ctrl-C (130) or SIGTERM (0). stdout is the protocol's alone; the server's own lines
// (what it offers, why not the writes) go to stderr, its log. A tool's error is its result, marked isError: the
// server goes on answering.

/** Said to the client at the start: how the tools are meant to be used. */
const INSTRUCTIONS = [
  "whsvc's tools manage webhooks on the business-platform service of this profile (and its local sandbox).",
  'Reads are free. Every tool that changes the account plans first: called without plan_id it changes nothing and answers the plan (what would change) with a plan_id;',
  'called again with the same arguments and that plan_id it carries out exactly that plan, unless the plan expired or what it read has changed since (then plan again).',
  "Show the plan to the user before carrying it out. A webhook's signing secret is never in a result: a create writes it to a file under the server's --secret-dir.",
].join(' ');

/** `whsvc mcp`'s flags. */
export interface McpOptions {
  readOnly: boolean;
  /** Where a created webhook's secret goes; without it no create is offered. */
  secretDir?: string | undefined;
}

export async function serve(options: McpOptions, context: ActionContext): Promise<number> {
  const { io, globals, interrupts } = context;
  const base = await buildDeps(globals, commandsIo(io), { prompter: context.prompter, interrupts, now: context.now });
  const profile = globals.profile === 'default' ? '' : ` --profile ${shellWord(globals.profile)}`;
  const store = ConfigStore.of(io.env);
  const credentials = resolveCredentials(io.env, store.getProfile(globals.profile)).credentials;
  const secrets = new Secrets(credentials?.clientSecret, () => base.api.cachedToken()?.access_token);
  // The SDK and zod, loaded for this command only, while the token is asked for.
  const [offer, sdk, z] = await Promise.all([whatToOffer(options, base, io.stderr), import('@modelcontextprotocol/server'), import('zod')]);
  const tools = toolsOf(z).filter((tool) => offered(tool, offer));
  const server = new sdk.McpServer({ name: 'whsvc', version: WHSVC_VERSION }, { instructions: INSTRUCTIONS });
  const plans = new PlanBook(join(store.dir, 'mcp-plans'), `${base.api.baseUrl} ${credentials?.clientId ?? ''}`, base.now);
  const toolContext = contextOf(options, plans);
  for (const tool of tools) register(server, tool, { base, context: toolContext, reporting: { profile }, secrets });
  const closed = new Promise<number>((done) => {
    server.server.onclose = () => done(0);
  });
  await server.connect(new HostTransport(io.stdin, io.stdout, sdk));
  io.stderr.write(`whsvc mcp: ${tools.length} tools for ${base.api.baseUrl} on stdio\n`);
  const code = await Promise.race([closed, interrupts.stopRequested()]);
  await server.close();
  return code;
}

/**
 * The streams the commands' runs get: never the host's stdout (the protocol's), which each call replaces with its own
 * (call.ts callDeps) anyway; stderr is the server's log, without a terminal's spinner.
 */
function commandsIo(io: Io): Io {
  return {
    stdin: { async *[Symbol.asyncIterator]() {} },
    stdout: { write: () => true },
    stderr: { write: (chunk: string) => io.stderr.write(chunk) },
    env: io.env,
    jsonOut: new CapturedJson(),
  };
}

/**
 * What the run offers. Writes, unless --read-only or the token's granted scope lacks webhooks:write (a token that
 * states no scope is not judged: the service answers 403 then). No token at all (not logged in, the service down):
 * the reads alone, whose errors say why. The sandbox's tools when the service answers the sandbox's clock.
 */
async function whatToOffer(options: McpOptions, base: CommandDeps, log: Io['stderr']): Promise<Offer> {
  const offer: Offer = { writes: !options.readOnly, secretDir: options.secretDir !== undefined, sandbox: false };
  let token: Awaited<ReturnType<CommandDeps['api']['token']>>;
  try {
    token = await base.api.token();
  } catch (error) {
    log.write(`whsvc mcp: reads only: no token (${(explained(error, base) as Error).message})\n`);
    return { ...offer, writes: false };
  }
  if (offer.writes && token.scope !== undefined && !token.scope.split(/\s+/).includes('webhooks:write')) {
    log.write(`whsvc mcp: reads only: the token's scope (${token.scope}) lacks webhooks:write\n`);
    offer.writes = false;
  }
  try {
    await sandboxClock(base.api);
    offer.sandbox = true;
  } catch {
    // Not a sandbox (its clock is the sandbox's own endpoint): no sandbox tools.
  }
  return offer;
}

function contextOf(options: McpOptions, plans: PlanBook): ToolContext {
  let queue: Promise<unknown> = Promise.resolve();
  return {
    plans,
    // Shown to the agent as the file's place: whole, wherever the server was started.
    secretDir: options.secretDir === undefined ? undefined : resolve(options.secretDir),
    alone: (work) => {
      const turn = queue.then(work, work);
      queue = turn.catch(() => undefined);
      return turn;
    },
  };
}

/**
 * A tool's input as the SDK lists it (its JSON Schema), with the checking left to the tool (tools.ts argumentsOf), so
 * that a bad argument is told in whsvc's words, as a tool error.
 */
function listedAs(input: z.ZodObject): StandardSchemaWithJSON<Record<string, unknown>> {
  return { '~standard': { ...input['~standard'], validate: (value: unknown) => ({ value: value as Record<string, unknown> }) } };
}

interface Served {
  base: CommandDeps;
  context: ToolContext;
  reporting: Reporting;
  secrets: Secrets;
}

function register(server: McpServer, tool: AnyTool, { base, context, reporting, secrets }: Served): void {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: listedAs(tool.input),
      annotations: { readOnlyHint: tool.kind === 'read', destructiveHint: tool.destructive === true, idempotentHint: tool.kind === 'read' },
    },
    async (given) => {
      try {
        return toolResult(await tool.run(argumentsOf(tool, given), base, context), secrets);
      } catch (error) {
        return errorResult(explained(error, base), reporting, secrets);
      }
    },
  );
}
