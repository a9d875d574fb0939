// The demo, as a user would type it: start the sandbox and a local receiver
// (whsvc listen), log in, create a webhook to the receiver with its secret
// captured to a file, make an event occur, and see the signed delivery arrive
// and verify.
import { build } from 'esbuild';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, startSandbox, WHSVC as whsvcBin } from './sandbox-process.mjs';

/**
 * The layout home of whsvc's lines (src/render/wrap.ts), bundled for this script, so that the demo lays out its lines
 * for the terminal as whsvc lays out its own: its words, the commands it shows, and the lines the sandbox and listen
 * write to their pipes (whole there: a pipe has no width), broken between words, ids, secrets and URLs whole.
 */
async function layoutHome() {
  const { outputFiles } = await build({
    entryPoints: [join(ROOT, 'src', 'render', 'wrap.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    logLevel: 'warning',
  });
  return import(`data:text/javascript;base64,${Buffer.from(outputFiles[0].text).toString('base64')}`);
}
const { laidOutAfter, terminalColumns, wrapCommand, wrapLine } = await layoutHome();
const width = terminalColumns(process.stdout);

const workDir = mkdtempSync(join(tmpdir(), 'whsvc-demo-'));
// A config dir of the demo's own, so the demo never touches your profiles.
const env = { ...process.env, WHSVC_CONFIG_DIR: join(workDir, 'config') };
// The demo's own words, as comments: a line too wide goes on in a comment.
const say = (...lines) => process.stdout.write(`\n${lines.map((line) => wrapLine(`# ${line}`, width, '# ')).join('\n')}\n`);
// A command as typed: too wide, it goes on after ` \`, as a shell reads it back.
const typed = (command) => process.stdout.write(`${wrapCommand(`$ ${command}`, width, '    ')}\n`);
// A line of the demo's own about what it started, under its text.
const note = (line) => process.stdout.write(`${laidOutAfter(process.stdout, '  ', line)}\n`);

/** A child's pipe shown after `prefix` (`  [sandbox] `), a whole line at a time, laid out for the terminal. */
function passedThrough(prefix) {
  let pending = '';
  return (chunk) => {
    pending += chunk;
    const end = pending.lastIndexOf('\n');
    if (end < 0) return;
    process.stdout.write(`${laidOutAfter(process.stdout, prefix, pending.slice(0, end))}\n`);
    pending = pending.slice(end + 1);
  };
}

/** Shows the command as typed, runs it, and stops the demo if it fails. */
function whsvc(args, { input, shown } = {}) {
  typed(shown ?? `whsvc ${args.join(' ')}`);
  const result = spawnSync(process.execPath, [whsvcBin, ...args], { env, input: input ?? '', stdio: ['pipe', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`whsvc ${args[0]} exited with ${result.status}`);
}

say('Start the sandbox: the service, locally', '(a real HTTP server on a free port)');
typed('whsvc sandbox start --port 0 --json &');
const { child: sandbox, info } = await startSandbox([], {
  env,
  onStderr: passedThrough('  [sandbox] '),
});
// The ready lines go to stderr first; let them show before going on.
await new Promise((resolve) => setTimeout(resolve, 50));
env.WHSVC_BASE_URL = info.base_url;
const stop = () => {
  if (sandbox.exitCode === null) sandbox.kill('SIGTERM');
  rmSync(workDir, { recursive: true, force: true });
};
process.on('exit', stop);

try {
  note(`base URL ${info.base_url}, client ${info.client_id}`);
  const secretFile = join(workDir, 'whsec.txt');

  say('A local receiver: whsvc listen verifies each delivery with the secret file', '(written later, by create)');
  typed('whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 &');
  const listener = spawn(process.execPath, [whsvcBin, 'listen', '--port', '0', '--secret-file', secretFile, '--count', '1', '--timeout', '30'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listener.stdout.setEncoding('utf8');
  listener.stdout.on('data', passedThrough('  [listen] '));
  const listened = new Promise((resolve) => listener.on('exit', resolve));
  const receiverUrl = await new Promise((resolve, reject) => {
    let err = '';
    listener.stderr.on('data', (chunk) => {
      err += chunk;
      const match = /ready at (\S+)/.exec(err);
      if (match) resolve(`${match[1]}/webhooks`);
    });
    listener.on('exit', (code) => reject(new Error(`listen exited with ${code}: ${err}`)));
  });
  note(`listening on ${receiverUrl}`);

  say('Log in: the secret comes from stdin, never the command line;', 'a token proves it first');
  whsvc(['login', '--client-id', info.client_id, '--client-secret-stdin'], {
    input: info.client_secret,
    shown: `printf %s "$CLIENT_SECRET" | whsvc login --client-id ${info.client_id} --client-secret-stdin`,
  });

  say('Create a webhook; its signing secret goes straight to a 0600 file');
  whsvc(['webhooks', 'create', '--url', receiverUrl, '--events', 'invoice.paid', '--secret-file', secretFile], {
    shown: `whsvc webhooks create --url ${receiverUrl} --events invoice.paid --secret-file ./whsec.txt`,
  });

  say('Make an event occur');
  whsvc(['sandbox', 'trigger', 'invoice.paid']);

  const code = await listened;
  say(...(code === 0 ? ['whsvc listen saw the delivery arrive with a valid signature, and exited 0'] : [`whsvc listen exited ${code}`]));
  if (code !== 0) process.exitCode = 1;

  say('The delivery log');
  const webhookId = JSON.parse(spawnSync(process.execPath, [whsvcBin, 'webhooks', 'list', '--json'], { env, encoding: 'utf8' }).stdout).data[0].id;
  whsvc(['deliveries', 'list', webhookId]);
} catch (error) {
  process.stderr.write(`demo failed: ${error.message}\n`);
  process.exitCode = 1;
} finally {
  stop();
}
