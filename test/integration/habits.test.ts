import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { login, sandboxEnv } from '../helpers/cli.js';
import { inProcessCliWith, runInProcess, startSandboxInProcess, usersInProcess, type SandboxInProcess } from '../helpers/in-process.js';

// The habits users bring from gh, stripe and svix (issue 35): each gets what the user meant, or one
// line that says what to type instead, exit 2. whsvc and the sandbox in-process; login at a terminal (tmux) is
// test/e2e/habits.test.ts.

let sandbox: SandboxInProcess;
let workDir: string;

beforeAll(async () => {
  sandbox = await startSandboxInProcess(['--quiet']);
  workDir = mkdtempSync(join(tmpdir(), 'whsvc-habits-'));
});

afterAll(async () => {
  await sandbox?.stop();
  rmSync(workDir, { recursive: true, force: true });
});

/** whsvc against the sandbox with its read-write client from the environment, no terminal. */
const cli = inProcessCliWith(() => sandboxEnv(sandbox.info, join(workDir, 'config')));
/** whsvc as run by a user with only a config dir, no address but what a flag or a profile gives. */
const user = usersInProcess(() => undefined);

describe('commands typed as other tools have them', () => {
  it("stripe's `whsvc trigger invoice.paid`: one line that says what to type, exit 2", async () => {
    const result = await cli(['trigger', 'invoice.paid', '--data', '{"id":"inv_1"}']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`whsvc: trigger is a command of sandbox: whsvc sandbox trigger invoice.paid --data '{"id":"inv_1"}'\n`);
    expect(result.stdout).toBe('');
  });

  it('a typo of a command still gets its suggestion', async () => {
    const result = await cli(['webhoks', 'list']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('unknown command webhoks; did you mean webhooks?');
  });

  it('`whsvc events list` lists the catalog, as `whsvc events` does', async () => {
    const [list, bare] = await Promise.all([cli(['events', 'list', '--json']), cli(['events', '--json'])]);
    expect(list.code, list.stderr).toBe(0);
    expect(JSON.parse(list.stdout)).toEqual(JSON.parse(bare.stdout));
    expect(JSON.parse(list.stdout).data.map((e: { type: string }) => e.type)).toContain('invoice.paid');
  });

  it('`whsvc help webhooks create` is the help of create (and of a command two levels down)', async () => {
    const create = await cli(['help', 'webhooks', 'create']);
    expect(create.code).toBe(0);
    expect(create.stdout).toMatch(/^Usage: whsvc webhooks create \[options\]\n/);
    const advance = await cli(['help', 'sandbox', 'clock', 'advance']);
    expect(advance.stdout).toMatch(/^Usage: whsvc sandbox clock advance \[options\] <duration>\n/);
    const unknown = await cli(['help', 'webhooks', 'craete']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr.split('\n')[0]).toBe('whsvc: unknown command craete for whsvc webhooks; did you mean create?');
  });

  it("gh's `whsvc auth login` is login: its help, and it logs in", async () => {
    const help = await cli(['auth', 'login', '--help']);
    expect(help.stdout).toMatch(/^Usage: whsvc auth login \[options\]\n/);
    expect(help.stdout).toContain('--client-secret-stdin');
    const dir = join(workDir, 'auth-login');
    const loggedIn = await user(['auth', 'login', '--client-id', sandbox.info.client_id, '--client-secret-stdin', '--base-url', sandbox.info.base_url], dir, {
      input: sandbox.info.client_secret,
    });
    expect(loggedIn.code, loggedIn.stderr).toBe(0);
    expect((await user(['auth', 'status'], dir)).stdout).toContain(sandbox.info.client_id);
    const logout = await user(['auth', 'logout'], dir);
    expect(logout.code, logout.stderr).toBe(0);
  });
});

describe('habits of gh, stripe, svix and kubectl users: exit 2 stays, with the command that does it (issue 44)', () => {
  const answered: Array<[string, string[], string, string]> = [
    [
      'gh --format json',
      ['webhooks', 'list', '--format', 'json'],
      'unknown option --format',
      'JSON is --json here (and --jq filters it): whsvc webhooks list --json',
    ],
    ["kubectl's -o json", ['webhooks', 'list', '-o', 'json'], 'unknown option -o', 'JSON is --json here (and --jq filters it): whsvc webhooks list --json'],
    [
      '--output=json',
      ['webhooks', 'list', '--output=json'],
      'unknown option --output=json',
      'JSON is --json here (and --jq filters it): whsvc webhooks list --json',
    ],
    [
      '--format table',
      ['deliveries', 'list', 'wh_1', '--format', 'table'],
      'unknown option --format',
      'a terminal gets a table, and --json gives JSON (--jq filters it): whsvc deliveries list wh_1 --json',
    ],
    [
      "gh's -q",
      ['webhooks', 'list', '--json', '-q', '.data[0].id'],
      'unknown option -q',
      "gh's -q is --jq here: whsvc webhooks list --json --jq '.data[0].id'",
    ],
    [
      "gh's --json id,url",
      ['webhooks', 'list', '--json', 'id,url'],
      'too many arguments for list: expected 0 arguments but got 1: id,url',
      "--json takes no list of fields here; --jq picks them: whsvc webhooks list --json --jq '.data[] | {id, url}'",
    ],
    ['webhooks rm', ['webhooks', 'rm', 'wh_1', '--yes'], 'unknown command rm', 'whsvc webhooks delete wh_1 --yes'],
    ['webhooks view', ['webhooks', 'view', 'wh_1'], 'unknown command view', 'whsvc webhooks get wh_1'],
    ["svix's endpoint list", ['endpoint', 'list'], 'unknown command endpoint', "svix's endpoints are webhooks here: whsvc webhooks list"],
    ['endpoints create', ['endpoints', 'create'], 'unknown command endpoints', "svix's endpoints are webhooks here: whsvc webhooks create"],
    [
      'deliveries resend',
      ['deliveries', 'resend', 'dlv_1'],
      'unknown command resend',
      'many at once are `whsvc deliveries recover --dry-run`; this one: whsvc deliveries retry dlv_1',
    ],
    [
      'deliveries redeliver',
      ['deliveries', 'redeliver', 'dlv_1'],
      'unknown command redeliver',
      'many at once are `whsvc deliveries recover --dry-run`; this one: whsvc deliveries retry dlv_1',
    ],
    [
      'events trigger',
      ['events', 'trigger', 'sales_order.created'],
      'too many arguments for events: expected 0 arguments but got 2: trigger, sales_order.created',
      'a sample to one webhook is `whsvc test WEBHOOK_ID --event sales_order.created`; an event in the sandbox: whsvc sandbox trigger sales_order.created',
    ],
    [
      'stripe listen 3000',
      ['listen', '3000'],
      'too many arguments for listen: expected 0 arguments but got 1: 3000',
      'to pass deliveries on to your app there is `whsvc listen --forward-to http://localhost:3000`; to receive on port 3000: whsvc listen --port 3000',
    ],
    [
      '--events a b',
      ['listen', '--events', 'invoice.paid', 'product.updated', '--port', '0'],
      'too many arguments for listen: expected 0 arguments but got 1: product.updated',
      'a list is one word, its items joined by commas: whsvc listen --events invoice.paid,product.updated --port 0',
    ],
    [
      'stripe listen --print-secret',
      ['listen', '--print-secret'],
      'unknown option --print-secret',
      "the signing secret is the webhook's, shown once when it is created (`whsvc webhooks create … --secret-file whsec.txt` keeps it in a file); then: whsvc listen --secret-file whsec.txt",
    ],
    [
      'update --active false',
      ['webhooks', 'update', 'wh_1', '--active', 'false'],
      'too many arguments for update: expected 1 argument but got 2: wh_1, false',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --inactive',
    ],
    [
      'update --active=false',
      ['webhooks', 'update', 'wh_1', '--active=false'],
      'unknown option --active=false',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --inactive',
    ],
    [
      'update --inactive false',
      ['webhooks', 'update', 'wh_1', '--inactive', 'false', '--url', 'https://example.com/h'],
      'too many arguments for update: expected 1 argument but got 2: wh_1, false',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --url https://example.com/h --active',
    ],
    [
      'update --paused',
      ['webhooks', 'update', 'wh_1', '--paused'],
      'unknown option --paused',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --inactive',
    ],
    [
      'update --disable',
      ['webhooks', 'update', 'wh_1', '--disable'],
      'unknown option --disable',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --inactive',
    ],
    [
      'update --enabled=true',
      ['webhooks', 'update', 'wh_1', '--enabled=true'],
      'unknown option --enabled=true',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --active',
    ],
    [
      'webhooks pause',
      ['webhooks', 'pause', 'wh_1'],
      'unknown command pause',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --inactive',
    ],
    [
      'webhooks enable',
      ['webhooks', 'enable', 'wh_1'],
      'unknown command enable',
      'a webhook is paused with --inactive and resumed with --active (no value): whsvc webhooks update wh_1 --active',
    ],
    [
      'create --active false',
      ['webhooks', 'create', '--url', 'https://example.com/h', '--events', 'invoice.paid', '--active', 'false'],
      'unknown option --active; did you mean --inactive?',
      'a webhook is created paused with --inactive: whsvc webhooks create --url https://example.com/h --events invoice.paid --inactive',
    ],
    [
      'create --disabled',
      ['webhooks', 'create', '--disabled', '--url', 'https://example.com/h'],
      'unknown option --disabled',
      'a webhook is created paused with --inactive: whsvc webhooks create --url https://example.com/h --inactive',
    ],
    [
      'clock advance 1 h',
      ['sandbox', 'clock', 'advance', '1', 'h'],
      'too many arguments for advance: expected 1 argument but got 2: 1, h',
      'write it as one word: whsvc sandbox clock advance 1h',
    ],
    [
      'clock advance 2 hours --json',
      ['--profile', 'dev', 'sandbox', 'clock', 'advance', '2', 'hours', '--json'],
      'too many arguments for advance: expected 1 argument but got 2: 2, hours',
      'write it as one word: whsvc --profile dev sandbox clock advance 2h --json',
    ],
    [
      'tail --since 2 h',
      ['deliveries', 'tail', '--since', '2', 'h'],
      'too many arguments for tail: expected 0 arguments but got 1: h',
      'write it as one word: whsvc deliveries tail --since 2h',
    ],
    [
      'clock advance -5m',
      ['sandbox', 'clock', 'advance', '-5m'],
      'unknown option -5m',
      "the sandbox's clock only moves forward; its time now: whsvc sandbox clock",
    ],
    ['whoami', ['whoami'], 'unknown command whoami', 'who is logged in, to which service, with which scopes: whsvc auth status'],
    [
      'stripe logs tail',
      ['logs', 'tail'],
      'unknown command logs',
      'those of one webhook are `whsvc deliveries list WEBHOOK_ID`; the deliveries as they happen: whsvc deliveries tail',
    ],
  ];
  it.each(answered)('%s: the refusal, then the command that does it', async (_habit, argv, line, hint) => {
    const result = await runInProcess(argv);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    // With --json the usage error is also its JSON line, after these.
    expect(result.stderr.split('\n').slice(0, 2)).toEqual([`whsvc: ${line}`, `hint: ${hint}`]);
    // At 80 columns, a command the hint says to run ends its line: a line pasted whole runs no prose after it.
    const at80 = await runInProcess(argv, { terminal: { columns: 80 } });
    const hintLines = at80.stderr.slice(at80.stderr.indexOf('hint: ')).trimEnd().split('\n');
    for (const hintLine of hintLines) expect(hintLine.replace(/`[^`]*`|'[^']*'/g, '``'), at80.stderr).not.toMatch(/\bwhsvc [^`]*[;,] /);
  });

  it('a usage error with no habit behind it points at the help of the command typed; a near miss is said in the same line', async () => {
    const flag = await runInProcess(['webhooks', 'list', '--bogus']);
    expect(flag.stderr).toBe('whsvc: unknown option --bogus\nhint: see whsvc webhooks list --help for usage\n');
    const typo = await runInProcess(['webhoks', 'list']);
    expect(typo.stderr).toBe('whsvc: unknown command webhoks; did you mean webhooks?\nhint: see whsvc --help for usage\n');
  });
});

describe('what was typed, echoed in a refusal or a hint: no credential, no control character acted on, not without end', () => {
  it.each<[string, string[], string]>([
    [
      'listen --secret',
      ['listen', '--secret', 'whsec_Xyz012345', '--format', 'json'],
      'hint: JSON is --json here (and --jq filters it): whsvc listen --secret <secret> --json',
    ],
    [
      'verify --secret with -q',
      ['verify', '--signature', 'sha256=ab', '--secret', 'whsec_Xyz012345', '-q', '.'],
      "hint: gh's -q is --jq here: whsvc verify --signature sha256=ab --secret <secret> --jq .",
    ],
    [
      'api -H X-Api-Key',
      ['api', '/v1/webhooks', '-H', 'X-Api-Key: k3y-val', '--format', 'json'],
      "hint: JSON is --json here (and --jq filters it): whsvc api /v1/webhooks -H 'X-Api-Key: <secret>' --json",
    ],
    [
      'api -f password',
      ['api', '/v1/webhooks', '-f', 'password=p4ss-val', '--output=json'],
      "hint: JSON is --json here (and --jq filters it): whsvc api /v1/webhooks -f 'password=<secret>' --json",
    ],
    [
      'login --client-secret',
      ['login', '--client-id', 'x', '--format', 'json', '--client-secret', 'S3CR3T-val'],
      'hint: JSON is --json here (and --jq filters it): whsvc login --client-id x --client-secret <secret> --json',
    ],
    [
      'a verb without its group',
      ['trigger', 'invoice.paid', '--secret', 'whsec_Xyz012345'],
      'whsvc: trigger is a command of sandbox: whsvc sandbox trigger invoice.paid --secret <secret>',
    ],
    ["an unknown option's value", ['webhooks', 'list', '--token=t0k-val'], "whsvc: unknown option '--token=<secret>'"],
  ])('%s: the credential is masked', async (_what, argv, line) => {
    const result = await runInProcess(argv);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')).toContain(line);
    expect(result.stderr).not.toMatch(/whsec_Xyz|k3y-val|p4ss-val|S3CR3T-val|t0k-val/);
  });

  it.each<[string, string[], string]>([
    ['an unknown command', ['webhooks\u001b[2J', 'list'], "whsvc: unknown command $'webhooks\\e[2J'"],
    ['an unknown option', ['--x\u001b]0;T\u0007'], "whsvc: unknown option $'--x\\e]0;T\\a'"],
    ['a line break in an option', ["--x'\nwhsvc: all good"], "whsvc: unknown option $'--x\\'\\nwhsvc: all good'"],
    ['an id in a hint', ['webhooks', 'rm', '\u001b[31mred'], "hint: whsvc webhooks delete $'\\e[31mred'"],
    ["a flag's value", ['listen', '--port', '1\u001b[2J'], "whsvc: --port $'1\\e[2J': must be an integer from 0 to 65535"],
  ])('%s: control characters escaped, seen as typed', async (_what, argv, line) => {
    const result = await runInProcess(argv);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stderr.split('\n')[line.startsWith('hint') ? 1 : 0]).toBe(line);
  });

  it('30,000 words: the hint and the refusal are cut in their middle, saying how many words they leave out', async () => {
    const words = Array.from({ length: 30_000 }, (_, i) => `w${i}`);
    const hinted = await runInProcess(['webhooks', 'list', '--format', 'json', ...words]);
    const [refusal, hint] = hinted.stderr.split('\n');
    expect(refusal).toBe('whsvc: unknown option --format');
    expect(hint).toMatch(/^hint: JSON is --json here \(and --jq filters it\): whsvc webhooks list w0 w1 .* … 29,9\d\d more words … .* w29999 --json$/);
    expect(hinted.stderr.length).toBeLessThan(500);
    const listed = await runInProcess(['webhooks', 'list', ...words]);
    expect(listed.stderr.split('\n')[0]).toMatch(
      /^whsvc: too many arguments for list: expected 0 arguments but got 30000: w0, w1, .* … 29,9\d\d more words …, .*, w29999$/,
    );
    expect(listed.stderr.length).toBeLessThan(500);
  });
});

describe('values written as other tools take them', () => {
  it("--url localhost:3000/x, stripe's form, is http://localhost:3000/x", async () => {
    const result = await cli(['webhooks', 'create', '--url', 'localhost:3000/x', '--events', 'invoice.paid', '--json']);
    expect(result.code, result.stderr).toBe(0);
    expect(JSON.parse(result.stdout).url).toBe('http://localhost:3000/x');
  });

  it('--base-url 127.0.0.1:PORT is http://127.0.0.1:PORT', async () => {
    const { host } = new URL(sandbox.info.base_url);
    const result = await cli(['webhooks', 'list', '--json', '--base-url', host], { env: { WHSVC_BASE_URL: undefined } });
    expect(result.code, result.stderr).toBe(0);
  });

  it('--timeout 1100ms, as every other time flag takes it: listen waits 1.1 s', async () => {
    const started = Date.now();
    const result = await cli(['listen', '--port', '0', '--secret', 'whsec_x', '--count', '1', '--timeout', '1100ms']);
    expect(result.code, result.stderr).toBe(6);
    expect(result.stderr).toContain('0 of 1 verified deliveries within 1.1 s');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1100);
    const bad = await cli(['deliveries', 'tail', '--timeout', 'soon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.split('\n')[0]).toBe('whsvc: --timeout soon: must be a duration such as 500ms, 90s, 30m, 2h or 3d (a bare number is seconds)');
  });

  it('an event id from sandbox trigger, given where a delivery id goes, says what an evt_ id is for', async () => {
    const triggered = await cli(['sandbox', 'trigger', 'invoice.paid', '--json']);
    const eventId = JSON.parse(triggered.stdout).id as string;
    expect(eventId).toMatch(/^evt_/);
    const result = await cli(['deliveries', 'show', eventId]);
    expect(result.code).toBe(5);
    expect(result.stderr.split('\n')[1]).toBe(
      `hint: ${eventId} is an event id, the name sandbox trigger gives the event it made; no command looks it up: its deliveries are the dlv_… ids trigger printed under it (whsvc deliveries show dlv_…)`,
    );
    const asType = await cli(['deliveries', 'recover', '--event', eventId, '--dry-run']);
    expect(asType.code).toBe(2);
    expect(asType.stderr).toContain(`hint: ${eventId} is an event id; --event takes event types, such as invoice.paid`);
  });
});

describe('login, as gh users expect it', () => {
  it('a login to another address says, in one line, what it replaced; the same client again says nothing', async () => {
    const { port } = new URL(sandbox.info.base_url);
    // A pasted secret, with the space and line end a terminal's copy brings along.
    const loginTo = (address: string) =>
      login(user.as(join(workDir, 'replace')), sandbox.info.client_id, `${sandbox.info.client_secret} \r\n`, ['--base-url', address]);
    const first = await loginTo(`127.0.0.1:${port}`);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr).not.toContain('replaced');
    const again = await loginTo(`127.0.0.1:${port}`);
    expect(again.stderr).not.toContain('replaced');
    const other = await loginTo(`localhost:${port}`);
    expect(other.code, other.stderr).toBe(0);
    expect(other.stderr.split('\n')[0]).toBe(
      `whsvc: replaced profile default, which held client ${sandbox.info.client_id} at http://127.0.0.1:${port} (whsvc login --profile NAME keeps a login of its own)`,
    );
    expect(other.stderr).not.toContain(sandbox.info.client_secret);
  });
});

describe('shell completion', () => {
  it('offers event types for sandbox trigger, also as the PowerShell script asks (the word being typed as --current=)', async () => {
    expect((await cli(['events'])).code).toBe(0);
    const bash = await cli(['__complete', '--', 'sandbox', 'trigger', 'inv']);
    expect(bash.stdout.split('\n').filter(Boolean)).toEqual(['inventory.changed', 'invoice.paid']);
    const powershell = await cli(['__complete', '--current=inv', '--', 'sandbox', 'trigger']);
    expect(powershell.stdout).toBe(bash.stdout);
    const empty = await cli(['__complete', '--current=', '--', 'webhooks']);
    expect(empty.stdout.split('\n')).toContain('create');
  });

  it("offers the interface's event types when no catalog can be had (not logged in): --event of send, test and check-receiver", async () => {
    const result = await user(['__complete', '--', 'check-receiver', 'http://localhost:3000', '--event', 'inv'], join(workDir, 'no-login'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toBe('inventory.changed\ninvoice.paid\n');
  });

  it('whsvc completion powershell prints a script to load in $PROFILE', async () => {
    const result = await cli(['completion', 'powershell']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^# whsvc completion for PowerShell, in \$PROFILE:\n# {3}whsvc completion powershell \| Out-String \| Invoke-Expression\n/);
    expect(result.stdout).toContain('Register-ArgumentCompleter -Native -CommandName whsvc');
  });
});
