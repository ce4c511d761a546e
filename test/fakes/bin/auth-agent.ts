/**
 * A fake agent that wants a sign-in, on the official SDK over real pipes. `session/new` answers
 * auth_required (-32000) until its config file exists. Its methods (initialize's authMethods):
 *   token       agent-type: `authenticate` writes the config;
 *   expired     agent-type too, always refused by `authenticate` ("token expired");
 *   setup       ACP `type: "terminal"` (listed when the client offers `auth.terminal`): the agent's
 *               own command with `--setup`;
 *   meta-setup  the Claude adapters' `_meta["terminal-auth"]` form (listed when the client's `_meta`
 *               says `terminal-auth`): the same script, as its own command line.
 *   claude-login with `--claude-method`: claude-agent-acp's `claude /login` (the `claude` CLI, not on PATH in tests).
 * `--setup` is the interactive script: it refuses to run without a terminal (like `hermes setup`),
 * asks for a key, writes the config. Arguments: `--config FILE` (where the config lives).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';

const argv = process.argv.slice(2);
const config = argv[argv.indexOf('--config') + 1];
if (!argv.includes('--config') || !config) {
  process.stderr.write('auth-agent: --config FILE is required\n');
  process.exit(2);
}

if (argv.includes('--setup')) await setup(config);
else serve(config);

async function setup(file: string): Promise<void> {
  if (!process.stdin.isTTY || !process.stdout.isTTY) {
    process.stderr.write('auth-agent setup needs a terminal\n');
    process.exit(3);
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  const key = (await rl.question('Fake agent setup. Enter your API key: ')).trim();
  rl.close();
  if (key === '') {
    process.stdout.write('No key given; nothing saved.\n');
    process.exit(1);
  }
  writeFileSync(file, JSON.stringify({ key }) + '\n');
  process.stdout.write(`Saved a key of ${key.length} characters.\n`);
  process.exit(0);
}

function serve(file: string): void {
  const app = acp.agent({ name: 'auth-fake' });
  // The script this process runs (a prebuilt bundle or the .ts under tsx): the setup command starts it again.
  const self = process.argv[1]!;
  let n = 0;

  app.onRequest(acp.methods.agent.initialize, async ({ params }) => {
    const caps = params.clientCapabilities as
      { auth?: { terminal?: boolean }; _meta?: Record<string, unknown> } | undefined;
    const methods: unknown[] = [
      { id: 'token', name: 'Use the built-in token', description: 'signs in without a terminal' },
      { id: 'expired', name: 'Use an expired token' },
    ];
    if (caps?.auth?.terminal) methods.push({ id: 'setup', name: 'Set up a key', type: 'terminal', args: ['--setup'] });
    if (caps?._meta?.['terminal-auth']) {
      methods.push({
        id: 'meta-setup',
        name: 'Set up a key (terminal-auth)',
        _meta: {
          'terminal-auth': {
            command: process.execPath,
            args: [...process.execArgv, self, '--config', file, '--setup'],
            label: 'auth-fake setup',
          },
        },
      });
    }
    if (caps?._meta?.['terminal-auth'] && argv.includes('--claude-method'))
      methods.push({
        id: 'claude-login',
        name: 'Log in with Claude Code',
        _meta: { 'terminal-auth': { command: 'claude', args: ['/login'], label: 'claude /login' } },
      });
    return {
      protocolVersion: 1,
      agentInfo: { name: 'auth-fake', version: '1.0.0' },
      agentCapabilities: { promptCapabilities: { image: true } },
      authMethods: methods,
    } as never;
  });

  app.onRequest(acp.methods.agent.authenticate, async ({ params }) => {
    if (params.methodId === 'expired') throw acp.RequestError.authRequired(undefined, 'token expired on 2026-01-01');
    if (params.methodId !== 'token')
      throw acp.RequestError.invalidParams({ methodId: params.methodId }, `no auth method ${params.methodId}`);
    writeFileSync(file, JSON.stringify({ key: 'built-in-token' }) + '\n');
    return {};
  });

  app.onRequest(acp.methods.agent.session.new, async () => {
    if (!existsSync(file)) throw acp.RequestError.authRequired(undefined, 'no key configured');
    return { sessionId: `auth-${n++}` };
  });

  app.onNotification(acp.methods.agent.session.cancel, async () => {});

  app.onRequest(acp.methods.agent.session.prompt, async ({ params, client }) => {
    if (!existsSync(file)) throw acp.RequestError.authRequired(undefined, 'the key was removed');
    await client.notify('session/update', {
      sessionId: params.sessionId,
      // Says how many images it got, so a test can tell a prompt's images arrived with it.
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: `Signed in; hello from auth-fake.${imagesNote(params.prompt)}` },
      },
    });
    return { stopReason: 'end_turn' };
  });

  app.connect(
    acp.ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    ),
  );
  process.stdin.on('end', () => process.exit(0));
}

function imagesNote(prompt: readonly { type: string }[]): string {
  const n = prompt.filter((b) => b.type === 'image').length;
  return n > 0 ? ` (${n} image${n > 1 ? 's' : ''})` : '';
}
