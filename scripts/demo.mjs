// The demo, as a user would type it: start the sandbox and a local receiver
// (whsvc listen), log in, create a webhook to the receiver with its secret
// captured to a file, make an event occur, and see the signed delivery arrive
// and verify.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSandbox, WHSVC as whsvcBin } from './sandbox-process.mjs';

const workDir = mkdtempSync(join(tmpdir(), 'whsvc-demo-'));
// A config dir of the demo's own, so the demo never touches your profiles.
const env = { ...process.env, WHSVC_CONFIG_DIR: join(workDir, 'config') };
// Each line of the demo's own words is written to fit 80 columns.
const say = (...lines) => process.stdout.write(`\n${lines.map((line) => `# ${line}`).join('\n')}\n`);

/** Shows the command as typed, runs it, and stops the demo if it fails. */
function whsvc(args, { input, shown } = {}) {
  process.stdout.write(`$ ${shown ?? `whsvc ${args.join(' ')}`}\n`);
  const result = spawnSync(process.execPath, [whsvcBin, ...args], { env, input: input ?? '', stdio: ['pipe', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new Error(`whsvc ${args[0]} exited with ${result.status}`);
}

say('Start the sandbox: the service, locally', '(a real HTTP server on a free port)');
process.stdout.write('$ whsvc sandbox start --port 0 --json &\n');
const { child: sandbox, info } = await startSandbox([], {
  env,
  onStderr: (chunk) => process.stdout.write(`  [sandbox] ${chunk.trimEnd().replace(/\n/g, '\n  [sandbox] ')}\n`),
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
  process.stdout.write(`  base URL ${info.base_url}, client ${info.client_id}\n`);
  const secretFile = join(workDir, 'whsec.txt');

  say('A local receiver: whsvc listen verifies each delivery with the secret file', '(written later, by create)');
  process.stdout.write(`$ whsvc listen --port 0 --secret-file ./whsec.txt --count 1 --timeout 30 &\n`);
  const listener = spawn(process.execPath, [whsvcBin, 'listen', '--port', '0', '--secret-file', secretFile, '--count', '1', '--timeout', '30'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  listener.stdout.on('data', (chunk) => process.stdout.write(`  [listen] ${chunk}`));
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
  process.stdout.write(`  listening on ${receiverUrl}\n`);

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
