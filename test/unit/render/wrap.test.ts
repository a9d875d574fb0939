import { describe, expect, it } from 'vitest';
import { displayWidth } from '../../../src/render/width.js';
import { hangOf, laidOut, laidOutAfter, terminalColumns, wrapCommand, wrapLine } from '../../../src/render/wrap.js';
import { argsPasted } from '../../helpers/pasted.js';

const widths = (text: string) => text.split('\n').map((line) => displayWidth(line));

describe('wrapLine: prose laid out for a terminal, as --help is', () => {
  const line = 'fail  2  bytes unlike a re-serialization are taken: answered 401 "signature mismatch", where the same JSON written compactly was taken';

  it('broken between words, each continuation under its text; its own runs of spaces kept', () => {
    expect(wrapLine(line, 60, ' '.repeat(9))).toBe(
      [
        'fail  2  bytes unlike a re-serialization are taken: answered',
        '         401 "signature mismatch", where the same JSON',
        '         written compactly was taken',
      ].join('\n'),
    );
    for (const width of [40, 60, 80, 132]) {
      const laid = wrapLine(line, width, ' '.repeat(9));
      for (const size of widths(laid)) expect(size).toBeLessThanOrEqual(width);
      // Every word whole, in order: the lines joined again are the line.
      expect(laid.replace(/\n {9}/g, ' ')).toBe(line);
    }
  });

  it('its own indent kept on the first line; a line that fits, and any line off a terminal (no width), as it is', () => {
    expect(wrapLine('         fix: answer 400 or 401 when the signature is missing', 40, ' '.repeat(11))).toBe(
      '         fix: answer 400 or 401 when the\n           signature is missing',
    );
    expect(wrapLine(line, displayWidth(line))).toBe(line);
    expect(wrapLine(line, undefined)).toBe(line);
  });

  it('a word a user copies (a URL, a path) is never shortened: too wide for the room left, whole on a line of its own', () => {
    const url = 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices';
    // Too wide after the hang too: at the start of a line of its own, whole (the terminal wraps it only where it is
    // wider than the whole line); what follows goes on under the text.
    expect(wrapLine(`checks of ${url}: 15 deliveries`, 60, '  ').split('\n')).toEqual(['checks of', `${url}:`, '  15 deliveries']);
    // In brackets after a deep indent (apply's list of mistakes): the brackets and the colon whole around it.
    expect(wrapLine(`  webhooks[0].events (${url}): "invoice.payed" is not`, 60, '    ').split('\n')).toEqual([
      '  webhooks[0].events',
      `(${url}):`,
      '    "invoice.payed" is not',
    ]);
    // Room for it under its text: there, whole.
    expect(wrapLine(`  + create     ${url}  (new)`, 90, ' '.repeat(15)).split('\n')).toEqual([`  + create     ${url}`, `${' '.repeat(15)}(new)`]);
    // A file's path in a ✓ line or a hint (create's secret file, a lock to delete): whole.
    const path = '/tmp/whsvc-every-line-L8Jd82/secrets-60/wh_7a9121f85d9342c47a53ba45.secret';
    expect(wrapLine(`✓ Signing secret written to ${path} (mode 0600).`, 60, '  ').split('\n')).toEqual(['✓ Signing secret written to', path, '  (mode 0600).']);
    const lock = '/home/jane/.local/state/whsvc/checkpoints/invoices-tail.ndjson.lock';
    expect(wrapLine(`hint: if no other tail runs, delete ${lock}`, 60, '      ').split('\n')).toEqual(['hint: if no other tail runs, delete', lock]);
    // The sandbox's inspector on a network address (its banner's row): the address and its token, whole.
    const inspector = 'http://192.168.1.20:4010/?token=Vb0Q6m1p4tS2kq8yZ1xE7wJc3aR5nH9d';
    expect(wrapLine(`  inspector     ${inspector}  (in a browser: every delivery, live)`, 60, ' '.repeat(16)).split('\n')).toEqual([
      '  inspector',
      inspector,
      `${' '.repeat(16)}(in a browser: every delivery, live)`,
    ]);
    // A pipe: whole.
    expect(wrapLine(`checks of ${url}: 15 deliveries`, undefined, '  ')).toBe(`checks of ${url}: 15 deliveries`);
  });

  it('a name given to keep (a file with spaces in its name) is never broken at its spaces', () => {
    const file = './my secrets/new whsec.txt';
    const text = `signed with the secrets in ./old.txt and ${file} (X-Service-Signature)`;
    // Left alone, the line breaks inside the name: `./my secrets/new` ends the first line.
    expect(wrapLine(text, 60, '  ').split('\n')[0]).toBe('signed with the secrets in ./old.txt and ./my secrets/new');
    expect(wrapLine(text, 60, '  ', [file])).toBe(`signed with the secrets in ./old.txt and\n  ${file} (X-Service-Signature)`);
  });

  it('a number and its unit are never parted (`10 s`, `64 KiB`), nor a short quoted literal (`", "`): a pipe gets them as they are', () => {
    const time = 'pass  9  every answer within 10 s; the largest payload taken: slowest 1.5 s, median 12 ms';
    // Left to its spaces, 60 columns would end the first line at `10` and put `s;` on the next.
    expect(wrapLine(time, 60, ' '.repeat(9)).split('\n')).toEqual([
      'pass  9  every answer within 10 s; the largest payload',
      '         taken: slowest 1.5 s, median 12 ms',
    ]);
    expect(wrapLine('it waits up to 2 min 10 s for the 64 KiB payload', 19, '')).toBe('it waits up to\n2 min 10 s for the\n64 KiB payload');
    const literal = 'cause: it verifies json.dumps(…) with its defaults (", " and ": "), not the bytes';
    expect(wrapLine(literal, 53, '  ').split('\n')).toEqual(['cause: it verifies json.dumps(…) with its defaults', '  (", " and ": "), not the bytes']);
    expect(wrapLine(literal, 58, '  ').split('\n')).toEqual(['cause: it verifies json.dumps(…) with its defaults (", "', '  and ": "), not the bytes']);
    // Two quoted words side by side are two words: `", "` between them is no literal.
    expect(wrapLine('types "invoice.paid", "product.updated"', 24, '')).toBe('types "invoice.paid",\n"product.updated"');
    expect(wrapLine(time, undefined)).toBe(time);
  });

  it('colour codes take no column', () => {
    const red = (text: string) => `\u001b[31m${text}\u001b[39m`;
    // 60 columns shown, 70 characters.
    const laid = wrapLine(`${red('fail')}  3  a body changed by one byte is refused: answered 200`, 60, ' '.repeat(9));
    expect(laid).toBe(`${red('fail')}  3  a body changed by one byte is refused: answered 200`);
    const narrow = wrapLine(`${red('fail')}  3  a body changed by one byte is refused`, 30, ' '.repeat(9));
    expect(narrow.split('\n')[0]).toBe(`${red('fail')}  3  a body changed by one`);
  });

  it("the width is a terminal's columns; a pipe, a file, or a terminal of no size gets none", () => {
    expect(terminalColumns({ write: () => true, isTTY: true, columns: 80 })).toBe(80);
    expect(terminalColumns({ write: () => true, isTTY: false, columns: 80 })).toBeUndefined();
    expect(terminalColumns({ write: () => true, isTTY: true, columns: 0 })).toBeUndefined();
    expect(terminalColumns({ write: () => true })).toBeUndefined();
  });

  it('a word to copy (keep: a secret) too wide after the hang goes whole at the start of a line of its own; wider than any line, whole', () => {
    const secret = 'sbx_secret_LGdFwNT26ZFxZWbDh4GrDRXFr5X_l2v4';
    expect(wrapLine(`  read-write    secret ${secret}`, 50, ' '.repeat(16), [secret])).toBe(`  read-write    secret\n${secret}`);
    // Room after the hang: under the text, as ever.
    expect(wrapLine(`  read-write    secret ${secret}`, 60, ' '.repeat(16), [secret])).toBe(`  read-write    secret\n${' '.repeat(16)}${secret}`);
    // Not given to keep: whole all the same (a user copies it).
    expect(wrapLine(`  read-write    secret ${secret}`, 50, ' '.repeat(16))).toBe(`  read-write    secret\n${secret}`);
    // Wider than any line: whole all the same, the terminal wraps it.
    expect(wrapLine(`  read-write    secret ${secret}`, 30, ' '.repeat(16), [secret])).toBe(`  read-write    secret\n${secret}`);
  });

  it('a value only shown (shorten: a signature, a body), wider than a line, is shortened as an id is, its start and end kept, in the room left', () => {
    const signature = `sha256=${'3f2a'.repeat(15)}9c1d`;
    const shorten = [signature];
    const at60 = wrapLine(`signature  ${signature}`, 60, ' '.repeat(11), [], { shorten });
    expect(at60).toMatch(/^signature {2}sha256=3f2a[0-9a-f]+…[0-9a-f]*9c1d$/);
    expect(displayWidth(at60)).toBe(60);
    // What follows goes on under it; the file's path, not shown only, whole.
    const late = wrapLine(`signature  ${signature} (the secret in ./whsec.txt)`, 60, ' '.repeat(11), [], { shorten });
    expect(late.split('\n')).toEqual([at60, `${' '.repeat(11)}(the secret in ./whsec.txt)`]);
    // Less than an id's short form left on the line: on the next, after the hang, in all its room.
    const prose = wrapLine(`sent 1234 bytes with the secret in ./whsec.txt, signed ${signature}`, 60, '  ', [], { shorten });
    expect(prose.split('\n')).toEqual(['sent 1234 bytes with the secret in ./whsec.txt, signed', expect.stringMatching(/^ {2}sha256=3f2a.*….*9c1d$/)]);
    expect(displayWidth(prose.split('\n')[1]!)).toBe(60);
    // Not named as only shown (a signature printed to be copied): whole, on a line of its own.
    expect(wrapLine(`signature  ${signature}`, 60, ' '.repeat(11))).toBe(`signature\n${signature}`);
    // YAML a file takes back (laidOutYaml) shortens nothing.
    expect(wrapLine(`  url: ${signature}`, 60, '    ', [], { hangAlways: true })).toBe(`  url:\n    ${signature}`);
  });

  it("a command in backticks stays whole on a line, never given a ` \\`: one wider than any line goes whole at a line's start", () => {
    const command = '`whsvc deliveries list wh_6cfed30be54c3974aaef9dd0 --status failed`';
    const laid = wrapLine(`hint: the service retries it: follow it with ${command}`, 80, '      ');
    expect(laid).toBe(`hint: the service retries it: follow it with\n      ${command}`);
    // A part of a sentence: a ` \\` inside or after its backticks would be pasted with it, or join the prose after it.
    expect(wrapLine(`hint: follow it with ${command}, or wait`, 40, '      ').split('\n')).toEqual(['hint: follow it with', `${command},`, '      or wait']);
    const retry = '`whsvc deliveries retry dlv_0123456789abcdef01234567`';
    expect(wrapLine(`hint: or ${retry} sends it again now`, 60, '      ').split('\n')).toEqual(['hint: or', `      ${retry}`, '      sends it again now']);
    // A command said to run, too wide under its text: at a line's start, whole; its URL wider than any line, whole.
    const url = 'https://hooks.production.example-company.com/api/v2/webhooks/erp/invoices';
    expect(wrapLine(`hint: svix's endpoints are webhooks here: whsvc webhooks create --url ${url}`, 60, '      ').split('\n')).toEqual([
      "hint: svix's endpoints are webhooks here:",
      'whsvc webhooks create --url \\',
      url,
    ]);
  });

  it("a whsvc command a hint says to run stays whole on a line, up to the `;` or `,` that ends it, a quoted word's spaces too", () => {
    const hang = '      ';
    expect(wrapLine('hint: JSON is --json here (and --jq filters it): whsvc webhooks list --json', 60, hang)).toBe(
      `hint: JSON is --json here (and --jq filters it):\n${hang}whsvc webhooks list --json`,
    );
    expect(wrapLine("hint: --json takes no list of fields here; --jq picks them: whsvc webhooks list --jq '.data[] | {id, url}'", 60, hang)).toBe(
      `hint: --json takes no list of fields here; --jq picks them:\n${hang}whsvc webhooks list --jq '.data[] | {id, url}'`,
    );
    // The command ends at the `;`: the sentence goes on after it, broken between words.
    expect(wrapLine('hint: the deliveries as they happen: whsvc deliveries tail; those of one webhook: whsvc deliveries list <webhook-id>', 60, hang)).toBe(
      `hint: the deliveries as they happen: whsvc deliveries tail;\n${hang}those of one webhook:\n${hang}whsvc deliveries list <webhook-id>`,
    );
    // A label (`whsvc listen: `) is no command: the text after it is broken as prose.
    expect(wrapLine('whsvc listen: ready at http://127.0.0.1:9000/ and waiting for deliveries', 40, hang)).toBe(
      `whsvc listen: ready at\n${hang}http://127.0.0.1:9000/ and waiting\n${hang}for deliveries`,
    );
  });

  it('only `whsvc` then one of its commands or an option is a command to keep whole: a sentence whsvc is the subject of is prose', () => {
    const hang = ' '.repeat(7);
    expect(wrapLine('hint: left as it is: whsvc removes only a file it could have written by itself here', 60, hang)).toBe(
      `hint: left as it is: whsvc removes only a file it could have\n${hang}written by itself here`,
    );
    expect(wrapLine('whsvc: the service gave the list of webhooks past 10,000 pages: whsvc stops there rather than read without end', 60, hang)).toBe(
      `whsvc: the service gave the list of webhooks past 10,000\n${hang}pages: whsvc stops there rather than read without end`,
    );
    expect(wrapLine('hint: JSON is --json here (and --jq filters it): whsvc webhooks list --json', 60, hang)).toBe(
      `hint: JSON is --json here (and --jq filters it):\n${hang}whsvc webhooks list --json`,
    );
    // An option before the command (a global one) is a command too.
    expect(wrapLine('hint: to see them as another profile: whsvc --profile sandbox webhooks list --json', 60, hang)).toBe(
      `hint: to see them as another profile:\n${hang}whsvc --profile sandbox webhooks list --json`,
    );
  });

  it('a command to paste (wrapCommand): each line but the last ends in ` \\`, each option with its value', () => {
    const command = '  log in        whsvc login --profile sandbox --client-id sbx_demo_readwrite --base-url http://127.0.0.1:34581';
    expect(wrapCommand(command, 60, ' '.repeat(18)).split('\n')).toEqual([
      '  log in        whsvc login --profile sandbox \\',
      `${' '.repeat(18)}--client-id sbx_demo_readwrite \\`,
      `${' '.repeat(18)}--base-url http://127.0.0.1:34581`,
    ]);
    expect(wrapCommand(command, 132, ' '.repeat(18))).toBe(command);
    expect(wrapCommand(command, undefined, ' '.repeat(18))).toBe(command);
  });

  it('a command to paste (wrapCommand): a quoted value is one piece, never broken: bash reads the lines as the command', () => {
    const commands = [
      "whsvc webhooks rotate-secret wh_7a9121f85d9342c47a53ba45 --secret-file '/Users/jane/Library/Application Support/whsvc/new hook.secret' --yes",
      'whsvc webhooks create --url https://hooks.example.com/in --events invoice.paid --secret-file "/Users/jane/My Secrets/a new hook.secret"',
      "whsvc sign --secret-file ./whsec.txt --payload-file 'payloads/an invoice that was paid late.json' 'one more quoted word'",
    ];
    for (const command of commands) {
      for (const columns of [60, 80]) {
        const laid = wrapCommand(`  ${command}`, columns, '    ');
        expect(laid.split('\n').length, laid).toBeGreaterThan(1);
        expect(argsPasted(laid), laid).toEqual(argsPasted(command));
        // Every line that fits does: only a quoted value wider than the line is left to the terminal.
        for (const line of laid.split('\n')) if (displayWidth(line) > columns) expect(line.trim(), laid).toMatch(/^(?:'[^']*'|"[^"]*") \\$/);
      }
    }
  });

  it("a command to paste: a word of glued runs (shellQuote's `'it'\\''s'`, shellWord's `$'…'`, \"…\" with escapes, `\\ `) is one word: at 40, 60 and 80 bash reads back the same arguments", () => {
    const values = [
      "'/tmp/it'\\''s my dir/new hook.secret'",
      "$'/tmp/a dir\\twith a tab/it\\'s here.secret'",
      '"/tmp/a \\"quoted\\" dir"/\'and more\'/new\\ hook.secret',
      "pre'fix with'\" spaces \"$'in \\'runs\\''",
    ];
    for (const value of values) {
      const command = `whsvc webhooks rotate-secret wh_7a9121f85d9342c47a53ba45 --secret-file ${value} --yes`;
      const hint = `hint: to write it there: ${command}`;
      for (const columns of [40, 60, 80]) {
        const laid = wrapCommand(`  ${command}`, columns, '    ');
        expect(argsPasted(laid), laid).toEqual(argsPasted(command));
        // Said to run in a sentence (SUGGESTED_COMMAND): kept whole, or laid out as one, the same words.
        const said = laidOut({ write: () => true, isTTY: true, columns }, hint);
        expect(argsPasted(said.slice(said.indexOf('whsvc'))), said).toEqual(argsPasted(command));
      }
    }
  });

  it('laidOut: each line for the stream, its continuations under the text after its label; a pipe as it is', () => {
    const tty = { write: () => true, isTTY: true, columns: 40 };
    const error = "whsvc: --secret-file holds one webhook's signing secret: follow that one webhook with --webhook ID";
    const hint = 'hint: run `whsvc login`, or set WHSVC_CLIENT_ID and WHSVC_CLIENT_SECRET';
    const laid = laidOut(tty, `${error}\n${hint}\n`);
    expect(laid.split('\n')).toEqual([
      "whsvc: --secret-file holds one webhook's",
      '       signing secret: follow that one',
      '       webhook with --webhook ID',
      'hint: run `whsvc login`, or set',
      '      WHSVC_CLIENT_ID and',
      '      WHSVC_CLIENT_SECRET',
      '',
    ]);
    expect(laidOut({ write: () => true, isTTY: false, columns: 40 }, `${error}\n`)).toBe(`${error}\n`);
    expect(hangOf('whsvc listen: ready')).toBe(' '.repeat(14));
    expect(hangOf('\u001b[33m!\u001b[39m could not check')).toBe('  ');
    expect(hangOf('  verifying with the secret')).toBe('    ');
    expect(hangOf('Moved the clock')).toBe('');
  });

  it("laidOutAfter: another program's lines from a pipe, after a prefix (the demo's `  [sandbox] `), broken between words under the prefix; ids, secrets, URLs and `dlv_… #1` whole", () => {
    const prefix = '  [sandbox] ';
    // The sandbox's lines as it writes them to a pipe: whole.
    const logLine = '17:39:45 delivered invoice.paid -> http://127.0.0.1:36273/webhooks  200  (dlv_8edd24697a428218a98955ea #1)';
    const ready = 'whsvc sandbox ready at http://127.0.0.1:46593 (its credentials are in the JSON line on stdout)';
    const secret = `  client secret ${'sbx_secret_'.padEnd(56, 'x')}`;
    const text = [logLine, ready, secret].join('\n');
    const wordsOf = (lines: string) => lines.split(/\s+/).filter((word) => word !== '' && word !== '[sandbox]');
    for (const columns of [60, 80]) {
      const laid = laidOutAfter({ write: () => true, isTTY: true, columns }, prefix, text);
      const lines = laid.split('\n');
      for (const line of lines) expect(displayWidth(line), laid).toBeLessThanOrEqual(columns);
      // Each line of the program's starts after the prefix; its continuations under the prefix (and under its own indent).
      expect(
        lines.filter((line) => line.startsWith(prefix)),
        laid,
      ).toHaveLength(3);
      const continued = lines.filter((line) => !line.startsWith(prefix) && !line.includes('sbx_secret_'));
      for (const line of continued) expect(line, laid).toMatch(/^ {12}\S/);
      // No word broken: the words are the pipe's, in order.
      expect(wordsOf(laid), laid).toEqual(wordsOf(text));
      expect(laid).toContain('(dlv_8edd24697a428218a98955ea #1)');
      // The secret whole on a line: under its own text where it fits there, else at the line's start, to copy in one piece.
      expect(laid).toMatch(columns === 80 ? /^ {16}sbx_secret_x+$/m : /^sbx_secret_x+$/m);
    }
    // A delivery's id that ends at the edge goes on with its attempt's number, never without it.
    const edge = `${'a'.repeat(38)} (dlv_8edd24697a428218a98955ea #1)`;
    expect(laidOutAfter({ write: () => true, isTTY: true, columns: 80 }, prefix, edge)).toBe(
      `${prefix}${'a'.repeat(38)}\n${' '.repeat(12)}(dlv_8edd24697a428218a98955ea #1)`,
    );
    // In a pipe: each line whole after the prefix.
    expect(laidOutAfter({ write: () => true, isTTY: false }, prefix, text)).toBe(`${prefix}${logLine}\n${prefix}${ready}\n${prefix}${secret}`);
  });
});
