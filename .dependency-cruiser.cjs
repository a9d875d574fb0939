// The layer rules of src/ (docs/architecture.md): each layer imports only those below it, and nothing imports the
// composition root (main.ts, program.ts), which alone stands over the command groups. `npm test` runs them.
const below = {
  commands: ['^src/main\\.ts$', '^src/program\\.ts$'],
  receiver: ['^src/main\\.ts$', '^src/program\\.ts$', '^src/commands/'],
  cli: ['^src/main\\.ts$', '^src/program\\.ts$', '^src/commands/', '^src/receiver/'],
  foundations: ['^src/main\\.ts$', '^src/program\\.ts$', '^src/commands/', '^src/receiver/', '^src/cli/', '^src/sandbox/'],
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'Files that import each other cannot be read or tested apart.', from: {}, to: { circular: true } },
    {
      name: 'commands-below-the-root',
      severity: 'error',
      comment: 'A command does not reach up to the program that gathers it.',
      from: { path: '^src/commands/' },
      to: { path: below.commands },
    },
    {
      name: 'commands-share-through-shared',
      severity: 'error',
      comment:
        "A group uses another group's code only through that group's shared/ folder. mcp/ is the exception: another front door (a Model Context Protocol server), whose tools call the commands' run functions, so that a tool's result is the command's --json.",
      from: { path: '^src/commands/([^/]+)/', pathNot: '^src/commands/mcp/' },
      to: { path: '^src/commands/', pathNot: ['^src/commands/$1/', '^src/commands/[^/]+/shared/'] },
    },
    {
      name: 'mcp-is-a-front-door',
      severity: 'error',
      comment: 'Only the composition root reaches mcp/: no command builds on the server that stands over them.',
      from: { path: '^src/commands/', pathNot: '^src/commands/mcp/' },
      to: { path: '^src/commands/mcp/' },
    },
    {
      name: 'receiver-is-a-library',
      severity: 'error',
      comment:
        "receiver/ is the receiver's side (verify, record, answer, send on, routes, its server), which listen, tail, replay, send and check-receiver call: it never imports a command, nor the terminal's rendering (render/: the commands make the lines); the words every part says sizes, times and outcomes in (render/words.ts, which the browser's page bundles too) are no terminal's.",
      from: { path: '^src/receiver/' },
      to: { path: [...below.receiver, '^src/render/'], pathNot: '^src/render/words\\.ts$' },
    },
    {
      name: 'cli-is-plumbing',
      severity: 'error',
      comment: 'cli/ serves the commands; it never imports them, nor the root.',
      from: { path: '^src/cli/' },
      to: { path: below.cli },
    },
    {
      name: 'screen-serves-the-commands',
      severity: 'error',
      comment:
        "screen/ is the interactive screen (listen -i, tail -i): its model, its view and the terminal under it; the commands give it their deliveries and actions, so it never imports a command, the receiver, nor the root.",
      from: { path: '^src/screen/' },
      to: { path: below.cli },
    },
    {
      name: 'foundations-know-no-terminal',
      severity: 'error',
      comment: 'api/, config/, files/, render/, protocol/, net.ts, exchange.ts and exact-json.ts know nothing of the CLI, the commands, the receiver or the sandbox.',
      from: { path: ['^src/api/', '^src/config/', '^src/files/', '^src/render/', '^src/protocol/', '^src/net\\.ts$', '^src/exchange\\.ts$', '^src/exact-json\\.ts$'] },
      to: { path: below.foundations },
    },
    {
      name: 'render-knows-no-http',
      severity: 'error',
      comment: 'Rendering and the delivery protocol know nothing of HTTP clients or files on disk.',
      from: { path: ['^src/render/', '^src/protocol/', '^src/net\\.ts$'] },
      to: { path: ['^src/api/', '^src/config/'] },
    },
    {
      name: 'store-below-the-sandbox',
      severity: 'error',
      comment: "The sandbox's store (its database and repositories) knows nothing of what uses it: the deliverer, the routes, the inspector.",
      from: { path: '^src/sandbox/store/' },
      to: { path: '^src/sandbox/', pathNot: '^src/sandbox/store/' },
    },
    {
      name: 'sandbox-is-the-service',
      severity: 'error',
      comment:
        "The sandbox is the service: it uses the protocol (protocol/), net.ts, exchange.ts and render/'s text helpers, never the CLI's client, config or receiver.",
      from: { path: '^src/sandbox/' },
      to: { path: ['^src/main\\.ts$', '^src/program\\.ts$', '^src/commands/', '^src/cli/', '^src/receiver/', '^src/api/', '^src/config/'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['^src/sandbox/inspector/client/'] },
    parser: 'swc',
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
