import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CommandDeps } from './context.js';
import { processIo } from './deps.js';
import { CliError, ExitCode } from './errors.js';
import { integerIn } from './parse.js';
import { DEFAULT_BASE_URL } from './defaults.js';
import { notOneOf } from './suggest.js';

type RunModule<O> = { run(options: O, deps: CommandDeps): Promise<number> };

/** A value from a fixed set, checked before any request, with a suggestion for near misses. */
function oneOf(what: string, choices: string[]) {
  return (value: string) => {
    if (!choices.includes(value)) throw new InvalidArgumentError(notOneOf(what, value, choices));
    return value;
  };
}

const list = (value: string) => value.split(',').map((s) => s.trim()).filter(Boolean);

/**
 * The action of an API command: its module is loaded only now (so --help and
 * --version load none of them), the dependencies are built from the global
 * options, and the exit code it returns becomes the process's.
 */
function apiAction<O>(load: () => Promise<RunModule<O>>, toOptions: (args: string[], opts: Record<string, any>) => O) {
  return async (...args: unknown[]) => {
    const command = args[args.length - 1] as Command;
    const opts = command.optsWithGlobals();
    const positional = args.slice(0, -2) as string[];
    const [{ buildDeps, readGlobals, inquirerPrompter, installInterruptHandler }, module] = await Promise.all([import('./context.js'), load()]);
    installInterruptHandler();
    const globals = readGlobals(opts, process.env);
    const deps = buildDeps(globals, processIo(), inquirerPrompter);
    process.exitCode = await module.run(toOptions(positional, opts), deps);
  };
}

/** With --json anywhere on the line, every error is also one JSON line on stderr, usage errors included. */
const jsonErrors = process.argv.slice(2).includes('--json');


/** Resolves with the exit code once the user asks to stop: Ctrl-C is 130, SIGTERM a clean 0. */
function stopRequested(): Promise<number> {
  return new Promise((resolve) => {
    process.once('SIGINT', () => {
      resolve(ExitCode.interrupted);
      process.once('SIGINT', () => process.exit(ExitCode.interrupted));
    });
    process.once('SIGTERM', () => resolve(ExitCode.ok));
  });
}

export function buildProgram(): Command {
  const program = new Command('whsvc')
    .description('Manage webhooks on the business-platform API, and run a local sandbox of the service.')
    .version(WHSVC_VERSION, '-v, --version', 'print the version')
    .showSuggestionAfterError()
    .showHelpAfterError('hint: see --help for usage')
    .configureOutput({ outputError: (text, write) => write(text.replace(/^error: /, 'whsvc: ')) })
    .exitOverride()
    .option('--profile <name>', 'credentials profile (env WHSVC_PROFILE)', undefined)
    .option('--base-url <url>', `service base address, overriding the profile's (env WHSVC_BASE_URL; default ${DEFAULT_BASE_URL}, the sandbox)`)
    .option('--json', 'machine output on stdout')
    .option('--no-color', 'no colour (also NO_COLOR); colour is only ever used on a terminal')
    .option('--no-input', 'never prompt; missing input is a usage error (also CI=true)')
    .option('--debug', 'HTTP exchanges on stderr, secrets redacted (also WHSVC_DEBUG=1)')
    .addOption(new Option('--timeout <seconds>', 'timeout of each request (env WHSVC_TIMEOUT; default 30)').argParser(integerIn(1, 86_400)))
    .addHelpText(
      'after',
      `
Examples:
  whsvc sandbox start                                   # the service, locally
  whsvc login --client-id sbx_demo_readwrite            # asks for the secret
  whsvc webhooks create --url https://example.com/hooks --events invoice.paid --secret-file whsec.txt
  whsvc listen --secret-file whsec.txt                  # a local receiver that verifies signatures
  whsvc deliveries list wh_…

Exit codes: 0 ok, 1 failure, 2 usage, 3 authentication, 4 permission, 5 not found, 6 timed out waiting, 130 interrupted.`,
    );

  const sandbox = program.command('sandbox').description('run the service locally, and make events occur in it');

  sandbox
    .command('start')
    .description('serve the whole interface on loopback, with real signed deliveries and retries')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4010).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data-dir <dir>', 'keep webhooks, deliveries, clients and due retries in DIR (SQLite) across restarts')
    .addOption(new Option('--retry-base-ms <n>', 'first automatic retry delay; doubles each time').default(5000).argParser(integerIn(1, 86_400_000)))
    .addOption(new Option('--max-attempts <n>', 'automatic attempts per delivery, the first included').default(5).argParser(integerIn(1, 50)))
    .addOption(new Option('--token-ttl <seconds>', 'lifetime of access tokens').default(3600).argParser(integerIn(1, 86_400 * 30)))
    .option('--platform-name <name>', 'the platform name in the signature header, X-<name>-Signature', 'Service')
    .addOption(
      new Option('--delivery-timeout-ms <n>', 'a delivery not answered within this fails').default(10_000).argParser(integerIn(1, 600_000)),
    )
    .option('--json', 'print one JSON line with the base URL and credentials on stdout when ready')
    .option('--quiet', 'do not log each delivery attempt on stderr')
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      if (!/^[A-Za-z][A-Za-z0-9-]{0,39}$/.test(opts.platformName)) {
        throw new CliError('--platform-name must be letters, digits and dashes, starting with a letter', ExitCode.usage);
      }
      const { run } = await import('./sandbox/start.js');
      process.exitCode = await run(
        {
          port: opts.port,
          host: opts.host,
          dataDir: opts.dataDir,
          retryBaseMs: opts.retryBaseMs,
          maxAttempts: opts.maxAttempts,
          tokenTtl: opts.tokenTtl,
          platformName: opts.platformName,
          deliveryTimeoutMs: opts.deliveryTimeoutMs,
          json: Boolean(opts.json),
          quiet: Boolean(opts.quiet),
        },
        { ...processIo(), stopSignal: stopRequested() },
      );
    });

  sandbox
    .command('trigger')
    .description('make an event occur in a running sandbox (sandbox-only endpoint, outside /v1)')
    .argument('<event-type>', 'an event type of the catalog, e.g. invoice.paid')
    .option('--data <json>', 'fields to set in the payload, as a JSON object')
    .option('--json', 'print the sandbox\'s answer as JSON')
    .action(async (eventType: string, _opts, command: Command) => {
      const opts = command.optsWithGlobals();
      const { run } = await import('./sandbox/trigger.js');
      process.exitCode = await run(
        {
          eventType,
          data: opts.data,
          baseUrl: opts.baseUrl ?? process.env.WHSVC_BASE_URL ?? DEFAULT_BASE_URL,
          json: Boolean(opts.json),
        },
        { ...processIo(), fetch },
      );
    });

  program
    .command('login')
    .description('store credentials in a profile, after proving them with a token request')
    .option('--client-id <id>', 'the API client id (asked when missing on a terminal)')
    .option('--client-secret-stdin', 'read the client secret from standard input (it never goes on the command line)')
    .option('--scope <scopes>', 'space-separated scopes to request (default: all the client has)')
    .addHelpText('after', '\nExamples:\n  whsvc login --client-id sbx_demo_readwrite            # asks for the secret, masked\n  printf %s "$SECRET" | whsvc login --client-id ID --client-secret-stdin')
    .action(
      apiAction(
        () => import('./auth/login.js'),
        (_args, o) => ({ clientId: o.clientId, clientSecretStdin: Boolean(o.clientSecretStdin), scope: o.scope }),
      ),
    );

  program
    .command('logout')
    .description("forget the profile's credentials and cached token")
    .action(apiAction(() => import('./auth/logout.js'), () => ({})));

  const auth = program.command('auth').description('credentials and tokens');
  auth
    .command('status')
    .description('profile, base URL, client id, granted scope and token expiry; never a secret')
    .action(apiAction(() => import('./auth/status.js'), () => ({})));
  auth
    .command('token')
    .description('print a valid access token (for curl)')
    .addHelpText('after', '\nExample:\n  curl -H "Authorization: Bearer $(whsvc auth token)" "$WHSVC_BASE_URL/v1/webhooks"')
    .action(apiAction(() => import('./auth/token.js'), () => ({})));

  const webhooks = program.command('webhooks').description('list, create, update and delete webhooks');
  webhooks
    .command('list')
    .description('one page of webhooks, or every page with --all')
    .addOption(new Option('--active <bool>', 'only active (true) or paused (false) webhooks').argParser(oneOf('--active', ['true', 'false'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor (printed with a page that has more)')
    .option('--all', 'every page, streamed as it arrives')
    .action(
      apiAction(
        () => import('./webhooks/list.js'),
        (_args, o) => ({ active: o.active === undefined ? undefined : o.active === 'true', limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }),
      ),
    );
  webhooks
    .command('get')
    .description('one webhook')
    .argument('<id>', 'webhook id')
    .action(apiAction(() => import('./webhooks/get.js'), ([id]) => ({ id: id! })));
  webhooks
    .command('create')
    .description('create a webhook; its signing secret is shown once')
    .option('--url <url>', 'the https endpoint (asked when missing on a terminal)')
    .addOption(new Option('--events <types>', 'comma-separated event types (a checklist when missing on a terminal)').argParser(list))
    .option('--inactive', 'create it paused')
    .option('--secret-file <path>', 'write the signing secret to this file (mode 0600) instead of showing it')
    .option('--force', 'let --secret-file overwrite an existing file')
    .addHelpText('after', '\nExamples:\n  whsvc webhooks create --url https://example.com/hooks --events invoice.paid,sales_order.created\n  whsvc webhooks create --url https://example.com/hooks --events invoice.paid --secret-file ./whsec.txt')
    .action(
      apiAction(
        () => import('./webhooks/create.js'),
        (_args, o) => ({ url: o.url, events: o.events, inactive: Boolean(o.inactive), secretFile: o.secretFile, force: Boolean(o.force) }),
      ),
    );
  webhooks
    .command('update')
    .description('change only what is given')
    .argument('<id>', 'webhook id')
    .option('--url <url>', 'new endpoint')
    .addOption(new Option('--events <types>', 'replace the event list').argParser(list))
    .addOption(new Option('--add-events <types>', 'add to the current event list').argParser(list))
    .addOption(new Option('--remove-events <types>', 'remove from the current event list').argParser(list))
    .addOption(new Option('--active', 'resume deliveries').conflicts('inactive'))
    .addOption(new Option('--inactive', 'pause deliveries').conflicts('active'))
    .action(
      apiAction(
        () => import('./webhooks/update.js'),
        ([id], o) => ({
          id: id!,
          url: o.url,
          events: o.events,
          addEvents: o.addEvents,
          removeEvents: o.removeEvents,
          active: o.active ? true : o.inactive ? false : undefined,
        }),
      ),
    );
  webhooks
    .command('delete')
    .description('delete a webhook (asks on a terminal; --yes otherwise)')
    .argument('<id>', 'webhook id')
    .option('-y, --yes', 'do not ask for confirmation')
    .action(apiAction(() => import('./webhooks/delete.js'), ([id], o) => ({ id: id!, yes: Boolean(o.yes) })));

  program
    .command('events')
    .description('the event-type catalog, grouped by module')
    .action(apiAction(() => import('./events.js'), () => ({})));

  program
    .command('test')
    .description('send a sample event to a webhook now (exit 1 if the endpoint did not accept it)')
    .argument('<webhook-id>', 'webhook id')
    .option('--event <type>', 'event type to simulate (default invoice.paid)')
    .action(apiAction(() => import('./test.js'), ([webhookId], o) => ({ webhookId: webhookId!, event: o.event })));

  const deliveries = program.command('deliveries').description('the delivery attempt log, and retries');
  deliveries
    .command('list')
    .description("a webhook's delivery attempts, newest first")
    .argument('<webhook-id>', 'webhook id')
    .addOption(new Option('--status <status>', 'delivered, failed or pending').argParser(oneOf('--status', ['delivered', 'failed', 'pending'])))
    .addOption(new Option('--limit <n>', 'page size, 1 to 200').argParser(integerIn(1, 200)))
    .option('--cursor <cursor>', 'the page after this cursor')
    .option('--all', 'every page, streamed as it arrives')
    .action(
      apiAction(
        () => import('./deliveries/list.js'),
        ([webhookId], o) => ({ webhookId: webhookId!, status: o.status, limit: o.limit, cursor: o.cursor, all: Boolean(o.all) }),
      ),
    );
  deliveries
    .command('show')
    .description('one attempt, with its payload and signature')
    .argument('<delivery-id>', 'delivery id')
    .action(apiAction(() => import('./deliveries/show.js'), ([id]) => ({ id: id! })));
  deliveries
    .command('retry')
    .description('re-send a failed or pending attempt now')
    .argument('<delivery-id>', 'delivery id')
    .action(apiAction(() => import('./deliveries/retry.js'), ([id]) => ({ id: id! })));

  program
    .command('listen')
    .description('a local receiver: verifies each delivery\'s signature and shows it; --count/--timeout make it a CI check')
    .addOption(new Option('--port <n>', 'port to listen on (0 picks a free one)').default(4011).argParser(integerIn(0, 65535)))
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--secret-file <path>', 'the signing secret, read from this file (re-read when it changes)')
    .option('--secret <secret>', 'the signing secret (prefer --secret-file or WHSVC_LISTEN_SECRET: argv is visible to other users)')
    .addOption(new Option('--respond-status <code>', 'status to answer verified deliveries with').default(200).argParser(integerIn(100, 599)))
    .option('--forward-to <url>', 'relay each verified delivery, byte for byte with its headers, to your local app')
    .addOption(new Option('--events <types>', 'only show these event types (comma-separated)').argParser(list))
    .addOption(new Option('--count <n>', 'exit 0 after N verified deliveries').argParser(integerIn(1, 1_000_000)))
    .addOption(new Option('--timeout <seconds>', 'stop after S seconds; exit 6 if --count was not reached').argParser(integerIn(1, 86_400)))
    .addHelpText(
      'after',
      '\nExamples:\n  whsvc listen --secret-file ./whsec.txt\n  whsvc listen --secret-file ./whsec.txt --forward-to http://localhost:3000/webhooks\n  whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 --json   # in CI',
    )
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      // For listen, --timeout is how long to wait; commander may hand it to the global option of that name.
      const timeout: number | undefined = command.opts().timeout ?? program.opts().timeout;
      const { run } = await import('./listen.js');
      process.exitCode = await run(
        {
          port: opts.port,
          host: opts.host,
          secret: opts.secret,
          secretFile: opts.secretFile,
          respondStatus: opts.respondStatus,
          forwardTo: opts.forwardTo,
          events: opts.events,
          count: opts.count,
          timeout,
          json: Boolean(opts.json),
          color: opts.color !== false,
        },
        { ...processIo(), stopSignal: stopRequested() },
      );
    });

  program
    .command('verify')
    .description('check a signature offline; the payload comes from stdin unless --payload-file')
    .requiredOption('--signature <sig>', 'the X-…-Signature value, with or without sha256=')
    .option('--secret-file <path>', 'the signing secret, read from this file')
    .option('--secret <secret>', 'the signing secret (prefer --secret-file: argv is visible to other users)')
    .option('--payload-file <path>', 'the raw body as received')
    .addHelpText('after', '\nExample:\n  whsvc verify --signature "sha256=…" --secret-file ./whsec.txt --payload-file body.json')
    .action(async (_opts, command: Command) => {
      const opts = command.optsWithGlobals();
      const { run } = await import('./verify.js');
      process.exitCode = await run(
        { signature: opts.signature, secret: opts.secret, secretFile: opts.secretFile, payloadFile: opts.payloadFile, json: Boolean(opts.json) },
        processIo(),
      );
    });

  program
    .command('completion')
    .description('print a shell completion script')
    .argument('<shell>', 'bash, zsh or fish')
    .addHelpText('after', '\nExamples:\n  eval "$(whsvc completion bash)"          # in ~/.bashrc\n  whsvc completion fish > ~/.config/fish/completions/whsvc.fish')
    .action(async (shell: string) => {
      const { script } = await import('./completion.js');
      process.stdout.write(script(shell));
    });

  program
    .command('__complete', { hidden: true })
    .argument('[words...]')
    .allowUnknownOption()
    .helpOption(false)
    .action(async () => {
      // The scripts pass the words after `--`, taken raw so that no word is parsed as an option of ours.
      const separator = process.argv.indexOf('--');
      const words = separator < 0 ? [] : process.argv.slice(separator + 1);
      const [{ printCandidates }, { buildDeps, readGlobals, inquirerPrompter }] = await Promise.all([import('./completion.js'), import('./context.js')]);
      const eventTypes = async () => {
        const deps = buildDeps({ ...readGlobals({}, process.env), timeout: 2 }, processIo(), inquirerPrompter);
        const cached = deps.config.readCatalog(deps.api.baseUrl);
        if (cached) return cached.data.map((e) => e.type);
        const { fetchCatalog } = await import('./catalog.js');
        return (await fetchCatalog(deps).catch(() => [])).map((e) => e.type);
      };
      process.exitCode = await printCandidates(program, words.length === 0 ? [''] : words, processIo(), eventTypes);
    });

  return program;
}

function writeError(message: string, exitCode: number, hint?: string, status?: number, code?: string): number {
  process.stderr.write(`whsvc: ${message}\n`);
  if (hint) process.stderr.write(`hint: ${hint}\n`);
  if (jsonErrors) {
    process.stderr.write(`${JSON.stringify({ error: { status: status ?? null, code: code ?? null, message } })}\n`);
  }
  return exitCode;
}

async function reportError(error: unknown): Promise<number> {
  if (error instanceof CommanderError) {
    if (error.exitCode === 0) return ExitCode.ok;
    // commander has printed its line (and suggestion) already.
    if (jsonErrors) process.stderr.write(`${JSON.stringify({ error: { status: null, code: 'usage', message: error.message.replace(/^error: /, '') } })}\n`);
    return ExitCode.usage;
  }
  if (error instanceof CliError) {
    return writeError(error.message, error.exitCode, error.hint, undefined, error.exitCode === ExitCode.usage ? 'usage' : undefined);
  }
  const { ApiError, AuthError, NetworkError } = await import('../api/errors.js');
  if (error instanceof AuthError) {
    return writeError(error.message, ExitCode.auth, 'run `whsvc login`, or set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET', error.status, error.code ?? 'unauthorized');
  }
  if (error instanceof NetworkError) {
    return writeError(error.message, ExitCode.failure, `is the service running at ${error.host}? Check --base-url, WHSVC_BASE_URL or the profile's base URL`);
  }
  if (error instanceof ApiError) {
    const status = error.status;
    if (status === 403) {
      const scope = error.requiredScope ?? 'a scope the token lacks';
      const message = error.message.includes(scope) ? `permission denied: ${error.message}` : `permission denied: this needs the ${scope} scope (${error.message})`;
      return writeError(message, ExitCode.permission, `log in with a client that has ${scope}`, 403, error.code);
    }
    const exit = status === 401 ? ExitCode.auth : status === 404 ? ExitCode.notFound : ExitCode.failure;
    return writeError(`${error.message} (HTTP ${status}${error.code ? ` ${error.code}` : ''})`, exit, undefined, status, error.code);
  }
  const debug = process.argv.includes('--debug') || process.env.WHSVC_DEBUG === '1';
  process.stderr.write(`whsvc: unexpected error: ${(error as Error)?.message ?? String(error)}\n`);
  if (debug) process.stderr.write(`${(error as Error)?.stack ?? ''}\n`);
  else process.stderr.write('hint: run again with --debug for details\n');
  return ExitCode.failure;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  process.exitCode = await reportError(error);
}
