import { describe, expect, it, vi } from 'vitest';
import { CliError } from '../../../src/cli/errors.js';
import { JqJson, jqEnvironment, loadJqFilter, bracketNesting } from '../../../src/cli/jq.js';
import { Collector } from '../../helpers/fake-deps.js';
import { SecretMask } from '../../../src/api/redact.js';

/** What `--jq expression` prints for the documents a command hands it (JSON texts), and the exit code it leaves. */
async function through(expression: string, documents: string[], options: { tty?: boolean; code?: number } = {}) {
  const stdout = new Collector(options.tty ?? false);
  const stderr = new Collector();
  const output = new JqJson(await loadJqFilter(expression), stdout, stderr);
  for (const document of documents) output.text(document);
  return { stdout: stdout.text, stderr: stderr.text, code: output.finish(options.code ?? 0) };
}

describe('--jq: the --json output through a real jq', () => {
  it('runs over the whole document of a stream (--all), once it is ended; a stream a failure cut short is dropped', async () => {
    const stdout = new Collector();
    const output = new JqJson(await loadJqFilter('.data | length'), stdout, new Collector());
    const document = output.stream('data', {});
    for (const id of ['wh_1', 'wh_2', 'wh_3']) document.item({ id });
    expect(stdout.text).toBe('');
    document.end({ has_more: false, next_cursor: null });
    expect(stdout.text).toBe('3\n');
    output.stream('data').item({ id: 'wh_4' });
    expect(output.finish(1)).toBe(1);
    expect(stdout.text).toBe('3\n');
  });

  it('a stream is kept for jq up to --max-answer-size: past it, one line and nothing filtered, memory given back', async () => {
    const stdout = new Collector();
    const stderr = new Collector();
    const output = new JqJson(await loadJqFilter('.data | length'), stdout, stderr, 100);
    const document = output.stream('data');
    for (let i = 0; i < 10; i++) document.item({ id: `wh_${i}`, url: 'https://example.com/hooks' });
    document.end({ has_more: false, next_cursor: null });
    expect(stdout.text).toBe('');
    expect(stderr.text).toMatch(/^whsvc: --jq: the document passed 100 bytes \(--max-answer-size\), the most kept for jq.*\n$/);
    expect(output.finish(0)).toBe(1);
  });

  it('a stream is started only by its first item: a run that fails before any prints nothing, as --json prints nothing', async () => {
    const stdout = new Collector();
    const output = new JqJson(await loadJqFilter('.summary.selected'), stdout, new Collector());
    const document = output.stream('deliveries', { dry_run: true });
    expect(document.started).toBe(false);
    // What recover --dry-run does when its walk fails: the document is ended only when begun.
    if (document.started) document.end({ summary: { selected: 0 } });
    expect(stdout.text).toBe('');
    document.item({ id: 'dlv_1' });
    expect(document.started).toBe(true);
  });

  it('strings print raw, as jq -r; other values compact in a pipe, one a line', async () => {
    const { stdout } = await through('.data[] | .id, {id}', ['{"data":[{"id":"wh_1"},{"id":"wh \\"2\\"\\n"}]}\n']);
    expect(stdout).toBe('wh_1\n{"id":"wh_1"}\nwh "2"\n\n{"id":"wh \\"2\\"\\n"}\n');
  });

  it('on a terminal: values indented, and control characters taken out of raw strings', async () => {
    const { stdout } = await through('.a, .s', ['{"a":{"b":[1]},"s":"red\\u001b[31m!"}\n'], { tty: true });
    expect(stdout).toBe('{\n  "b": [\n    1\n  ]\n}\nred[31m!\n');
  });

  it('an NDJSON stream: each line through the filter as it comes, printed at once', async () => {
    const stdout = new Collector();
    const output = new JqJson(await loadJqFilter('select(.event == "invoice.paid") | .id'), stdout, new Collector());
    output.line({ url: 'http://127.0.0.1:1' });
    expect(stdout.text).toBe('');
    output.line({ id: 'dlv_1', event: 'invoice.paid' });
    expect(stdout.text).toBe('dlv_1\n');
    output.line({ id: 'dlv_2', event: 'product.updated' });
    output.line({ id: 'dlv_3', event: 'invoice.paid' });
    expect(stdout.text).toBe('dlv_1\ndlv_3\n');
  });

  it('big numbers keep every digit (jq 1.8 keeps the literal)', async () => {
    expect((await through('.n', ['{"n":100000000000000000001}'])).stdout).toBe('100000000000000000001\n');
  });

  it('a bad expression is a usage error (exit 2) naming the problem where the user wrote it', async () => {
    const error = (await loadJqFilter('.data | lenght').catch((e: unknown) => e)) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('--jq ".data | lenght": lenght/0 is not defined (line 1, column 9)');
    const syntax = (await loadJqFilter('.data |').catch((e: unknown) => e)) as CliError;
    expect(syntax.message).toBe('--jq ".data |": syntax error, unexpected end of file (line 1, column 7)');
  });

  it("a program whose brackets do not balance is a usage error, jq's syntax error, before anything runs", async () => {
    for (const escaping of ['.) | (.', '.a) else empty end | (if true then (.', '.] | [.', '.} | {a: .', '.) | repeat(.) | (.']) {
      const error = (await loadJqFilter(escaping).catch((e: unknown) => e)) as CliError;
      expect(error, escaping).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toMatch(/syntax error/);
    }
    expect(bracketNesting('.) | (.')).toBe(1);
    expect(bracketNesting('"\\\\(" | (.a) # )')).toBe(1);
  });

  it("a program nested deeper than jq's stack takes is a usage error before anything runs; a long one is echoed cut (issue 44)", async () => {
    const deep = `${'['.repeat(1000)}.a${']'.repeat(1000)}`;
    const error = (await loadJqFilter(deep).catch((e: unknown) => e)) as CliError;
    expect(error).toBeInstanceOf(CliError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe(`--jq "${'['.repeat(59)}…": nested 1000 deep; whsvc's jq runs programs nested at most 256 deep`);
    // Brackets inside a string are no nesting; 256 deep runs.
    expect(bracketNesting('"((((" | [.]')).toBe(1);
    expect((await through(`${'['.repeat(256)}.a${']'.repeat(256)} | flatten | .[0]`, ['{"a":7}'])).stdout).toBe('7\n');
  });

  it('the nesting is counted as jq reads the program: inside interpolations, and neither a comment nor a string hides what follows', async () => {
    const deep = `${'['.repeat(1000)}.a${']'.repeat(1000)}`;
    for (const hidden of [
      // A comment holding a quote, which would open a string if read as code; one continued on past a backslash.
      `# "\n${deep}`,
      `# a \\\n "\n${deep}`,
      // Brackets inside an interpolation, and interpolations inside one another.
      `"\\(${deep})"`,
      `${'"\\('.repeat(300)}.a${')"'.repeat(300)}`,
    ]) {
      const error = (await loadJqFilter(hidden).catch((e: unknown) => e)) as CliError;
      expect(error, hidden.slice(0, 20)).toBeInstanceOf(CliError);
      expect(error.message).toMatch(/: nested \d+ deep; whsvc's jq runs programs nested at most 256 deep$/);
    }
    expect(bracketNesting('"\\([.a, "\\((1))"])" # (((')).toBe(4);
    expect(bracketNesting('"a\\"[" | [.] # ("\n| [.] # a \\\\\n| [.]')).toBe(1);
    expect(bracketNesting('# (( \\\n ((\n.')).toBe(0);
    // As jq 1.8's lexer reads a comment: a backslash carries it over a \r\n too, and over one line's end only.
    expect(bracketNesting('# (( \\\r\n ((\n.')).toBe(0);
    expect(bracketNesting('# \\\n\n((.))')).toBe(2);
    expect(bracketNesting('# \\x\n((.))')).toBe(2);
  });

  it("$ENV and env are the user's environment, less what holds a credential, with a URL's password masked (issue 44)", async () => {
    const env = {
      PAGER: 'less',
      WHSVC_CLIENT_SECRET: 'sbx_secret_x',
      GITHUB_TOKEN: 'ghp_x',
      AWS_SECRET_ACCESS_KEY: 'k',
      HTTPS_PROXY: 'http://user:hunter2@proxy:3128',
    };
    const stdout = new Collector();
    const output = new JqJson(await loadJqFilter('$ENV.PAGER, env.PAGER, ($ENV | keys), $ENV.HTTPS_PROXY', { env }), stdout, new Collector());
    output.text('null');
    const [pager, viaEnv, keys, proxy] = stdout.text.trimEnd().split('\n');
    expect([pager, viaEnv]).toEqual(['less', 'less']);
    expect(JSON.parse(keys!)).toEqual(['HTTPS_PROXY', 'PAGER']);
    expect(proxy).not.toContain('hunter2');
    expect(jqEnvironment(env)).not.toHaveProperty('WHSVC_CLIENT_SECRET');
  });

  it("$ENV drops credentials by name (PASS, PWD, AUTH, COOKIE, JWT, PAT, PRIVATE, SESSION…) and by value (a signing secret, the client secret, a secret of the run's)", async () => {
    const clientSecret = 'sbx_client_secret_0123';
    const held = 'profile_secret_4567_abcd';
    const env = {
      DB_PASS: 'p1',
      MYSQL_PWD: 'p2',
      HTTP_COOKIE: 'sid=1',
      NPM_CONFIG__AUTH: 'dXNlcjpwYXNz',
      CI_JOB_JWT: 'eyJ.x.y',
      GITHUB_PAT: 'ghp_1',
      AUTH: 'a',
      AUTHORIZATION: 'Bearer b',
      PRIVATE_PEM: '-----BEGIN',
      SESSION_ID: 's',
      SIGNING: 'whsec_0f1e2d3c4b5a6978',
      WHSVC_CLIENT_SECRET: clientSecret,
      CLIENT_COPY: clientSecret,
      OTHER_NAME: held,
      PWD: '/home/me/work',
      OLDPWD: '/home/me',
      PATH: '/usr/bin',
      PATTERN: 'x',
      PAGER: 'less',
    };
    const secrets = new SecretMask();
    secrets.add(held);
    expect(Object.keys(jqEnvironment(env, secrets)).sort()).toEqual(['OLDPWD', 'PAGER', 'PATH', 'PATTERN', 'PWD']);
    // The environment is made at the first input, once the run's secrets are known (its client's is read with the profile).
    const late = new SecretMask();
    const stdout = new Collector();
    const output = new JqJson(
      await loadJqFilter('$ENV | keys | join(",")', { env: { OTHER_NAME: held, PAGER: 'less' }, secrets: late }),
      stdout,
      new Collector(),
    );
    late.add(held);
    output.text('null');
    expect(stdout.text).toBe('PAGER\n');
  });

  it('the check runs nothing: an expression that would loop for ever, or read input, compiles and is not run', async () => {
    await expect(loadJqFilter('repeat(.)')).resolves.toBeDefined();
    await expect(loadJqFilter('input')).resolves.toBeDefined();
    await expect(loadJqFilter('def f: .a; f # a comment')).resolves.toBeDefined();
  });

  it('the check runs nothing, even where a comment goes on past its line (a backslash at its end), and runs as the filter does (Ctrl-C stops it)', async () => {
    const checked: string[] = [];
    const unguarded = <T>(work: () => T): T => {
      checked.push('unguarded');
      return work();
    };
    // jq 1.8 carries a comment that ends in a backslash on to the next line; each of these is valid jq.
    for (const program of ['error("ran") # \\', '. # note \\', '[repeat("x" * 1000)] # \\', 'last(range(1e12)) # \\']) {
      await expect(loadJqFilter(program, { unguarded }), program).resolves.toBeDefined();
    }
    expect(checked).toHaveLength(4);
    expect((await through('.a # note \\\n.b', ['{"a":1}'])).stdout).toBe('1\n');
  });

  it('jq itself failing as it compiles (it works out `"x" * 1e9` then) is one usage line, before anything is sent', async () => {
    const runtimeLines = vi.spyOn(console, 'error');
    try {
      const error = (await loadJqFilter('"x" * 1e9').catch((e: unknown) => e)) as CliError;
      expect(error).toBeInstanceOf(CliError);
      expect(error.exitCode).toBe(2);
      expect(error.message).toBe('--jq "\\"x\\" * 1e9": jq ran out of memory or stack (Aborted()): a program that builds too much or recurses too deep');
      expect(runtimeLines).not.toHaveBeenCalled();
    } finally {
      runtimeLines.mockRestore();
    }
  });

  it("an error whose value is not a string reads as jq's other errors do, without jq's name for its input", async () => {
    const result = await through('error({code: 1})', ['null']);
    expect(result.stderr).toBe('whsvc: --jq: {"code":1} (not a string)\n');
  });

  it('what jq writes to stderr never holds a signing secret of its input, though the run did not hold it: errors, halt_error, debug', async () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789/+AB';
    const input = JSON.stringify({ id: 'wh_1', signing_secret: secret });
    for (const program of [
      '.signing_secret | fromjson',
      'error',
      'halt_error',
      '.signing_secret | halt_error',
      '.signing_secret | tonumber',
      '.signing_secret | @base64 | error',
      '.signing_secret | @uri | error',
      '.signing_secret | debug | empty',
      '.signing_secret | stderr | empty',
      '"whsec_made\\(.id)ByTheProgram" | error',
    ]) {
      const { stderr } = await through(program, [input]);
      expect(stderr, program).toMatch(/\[redacted\]/);
      for (const form of [secret.slice(0, 14), Buffer.from(secret).toString('base64').slice(0, 20), 'whsec_madewh_1']) {
        expect(stderr, program).not.toContain(form);
      }
    }
  });

  it('a document handed on with its secret: its results printed only when they hold the secret; else none, and exit 1', async () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz0123456789/+AB';
    const webhook = { id: 'wh_1', signing_secret: secret };
    const handed = async (expression: string, withSecret = true) => {
      const stdout = new Collector();
      const stderr = new Collector();
      const output = new JqJson(await loadJqFilter(expression), stdout, stderr);
      const shown = output.document(webhook, withSecret ? secret : undefined);
      return { shown, stdout: stdout.text, stderr: stderr.text, code: output.finish(0) };
    };
    expect(await handed('.id, .signing_secret')).toEqual({ shown: 'shown', stdout: `wh_1\n${secret}\n`, stderr: '', code: 0 });
    expect(await handed('{id, signing_secret}')).toMatchObject({ shown: 'shown', code: 0 });
    expect(await handed('.id')).toEqual({ shown: 'dropped', stdout: '', stderr: '', code: 1 });
    expect(await handed('empty')).toEqual({ shown: 'dropped', stdout: '', stderr: '', code: 1 });
    expect(await handed('.signing_secret[:20]')).toMatchObject({ shown: 'dropped', stdout: '' });
    // Forms it can be had back whole from: base64 and base64url (a Kubernetes Secret), the key after `whsec_` (Svix-style
    // libraries), URL-encoded; a cut one, in any of them, is not shown.
    for (const shownForm of [
      '.signing_secret | @base64',
      '.signing_secret | @base64 | gsub("[+]"; "-") | gsub("/"; "_") | rtrimstr("=")',
      '.signing_secret | ltrimstr("whsec_")',
      '.signing_secret | @uri',
      '{apiVersion: "v1", kind: "Secret", data: {secret: (.signing_secret | @base64)}}',
    ]) {
      expect(await handed(shownForm), shownForm).toMatchObject({ shown: 'shown', code: 0 });
    }
    for (const cutForm of [
      '.signing_secret[0:-1]',
      '.signing_secret[0:-1] | @base64',
      '.signing_secret | @base64 | .[0:-4]',
      '.signing_secret | ltrimstr("whsec_") | .[1:]',
    ]) {
      expect(await handed(cutForm), cutForm).toMatchObject({ shown: 'dropped', stdout: '', code: 1 });
    }
    expect(await handed('.signing_secret, error("no")')).toEqual({ shown: 'failed', stdout: '', stderr: 'whsvc: --jq: no\n', code: 1 });
    // A document without a secret to carry: the filter's to shape as it likes.
    expect(await handed('.id', false)).toEqual({ shown: 'shown', stdout: 'wh_1\n', stderr: '', code: 0 });
  });

  it("a program as jq's command line runs it: its module directive first, its lines its own, its input <stdin>", async () => {
    // whsvc's $ENV goes after the directives jq takes only at a program's start, and on its first line.
    expect((await through('module {name: "x;y"}; # a comment;\n[$__loc__.line, env.HOME == $ENV.HOME]', ['null'])).stdout).toBe('[2,true]\n');
    // Checked without running it, directive and all.
    await expect(loadJqFilter('module {}; repeat(.)')).resolves.toBeDefined();
    // jq-wasm reads its input as the file /dev/stdin; jq on a pipe calls it <stdin>.
    expect((await through('input_filename', ['null'])).stdout).toBe('<stdin>\n');
  });

  it("jq's runtime error: what came before it is printed, the error said on stderr, and the exit code becomes 1", async () => {
    const result = await through('.[] | if .id == 1 then error("no 1 here") else .id end', ['[{"id":"a"},{"id":1},{"id":"c"}]']);
    expect(result.stdout).toBe('a\n');
    expect(result.stderr).toBe('whsvc: --jq: no 1 here\n');
    expect(result.code).toBe(1);
    // A command that failed keeps its own code.
    expect((await through('.x.y', ['"s"'], { code: 5 })).code).toBe(5);
  });

  it.each([
    // Memory: jq's WebAssembly reaches its limit and its runtime aborts.
    ['out of memory', 'def f: f + 1; f', 'Aborted()'],
    // Recursion too deep: jq overruns its memory.
    ['recursing too deep', 'reduce range(100000) as $i (null; [.]) | tojson', 'memory access out of bounds'],
  ])("jq itself failing (%s) is one line naming it as jq's failure, exit 1; jq is not run again on what follows", async (_what, program, reason) => {
    const runtimeLines = vi.spyOn(console, 'error');
    try {
      const expression = `if .deep then (${program}) else .id end`;
      const result = await through(expression, ['{"id":"a"}\n', '{"deep":true}\n', '{"id":"b"}\n']);
      expect(result.stdout).toBe('a\n');
      expect(result.stderr).toBe(
        `whsvc: --jq: jq ran out of memory or stack (${reason}): a program that builds too much or recurses too deep; nothing more is filtered\n`,
      );
      expect(result.code).toBe(1);
      // Its runtime's own line (Aborted()) is not written beside whsvc's.
      expect(runtimeLines).not.toHaveBeenCalled();
    } finally {
      runtimeLines.mockRestore();
    }
  });

  it("whether a document went through is told to the command (document()); jq's errors quote no secret of the run's, whole or cut", async () => {
    const secret = 'whsec_abcdefghijklmnopqrstuvwxyz012345';
    const secrets = new SecretMask();
    secrets.add(secret);
    const stderr = new Collector();
    const filter = await loadJqFilter('if .deep then (def f: f + 1; f) else (.s | tonumber), (.s | error) end');
    const output = new JqJson(filter, new Collector(), stderr, Number.POSITIVE_INFINITY, secrets);
    expect(output.document({ s: '7' })).toBe('failed');
    expect(output.document({ s: secret })).toBe('failed');
    expect(stderr.text).toBe('whsvc: --jq: 7\nwhsvc: --jq: string ("[redacted]") cannot be parsed as a number\n');
    stderr.chunks.length = 0;
    // jq itself failing, and every document after it.
    const runtimeLines = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(output.document({ deep: true })).toBe('failed');
    } finally {
      runtimeLines.mockRestore();
    }
    expect(output.document({ s: '1' })).toBe('failed');
    expect(new JqJson(await loadJqFilter('.s'), new Collector(), stderr).document({ s: 'ok' })).toBe('shown');
  });

  it('a command with no JSON to give: what it writes is not printed, said once, and a failure', async () => {
    const stdout = new Collector();
    const stderr = new Collector();
    const output = new JqJson(await loadJqFilter('.'), stdout, stderr);
    output.plainOutput.write('# bash completion\n');
    output.plainOutput.write('complete -F _whsvc whsvc\n');
    expect(stdout.text).toBe('');
    expect(stderr.text).toBe('whsvc: --jq: this command prints no JSON document to filter\n');
    expect(output.finish(0)).toBe(1);
  });
});
