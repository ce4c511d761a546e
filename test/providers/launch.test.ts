import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { spawnAgent } from '../../src/protocol/spawn.js';
import { agentEnv } from '../../src/providers/launch.js';
import { builtinProviders, loadRegistry } from '../../src/providers/registry.js';
import type { Provider, ProviderEnv } from '../../src/providers/types.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

/** Every credential a built-in ever copied from our env, plus a few any shell may hold. */
const AMBIENT = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'CLAUDE_CODE_OAUTH_TOKEN',
  'OPENAI_API_KEY',
  'CODEX_API_KEY',
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'OPENCODE_CONFIG_CONTENT',
  'OPENROUTER_API_KEY',
  'KIMI_API_KEY',
  'MOONSHOT_API_KEY',
  'DASHSCOPE_API_KEY',
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'COPILOT_PROVIDER_API_KEY',
  'KILO_CONFIG_CONTENT',
  'CURSOR_API_KEY',
  'AWS_SECRET_ACCESS_KEY',
  'HERMES_API_KEY',
];
const ambientValue = (name: string) => `ambient-${name}`;

/** A machine whose env holds every ambient credential, a config.json and both editors' agent lists. */
function machine(config?: unknown): { ctx: ProviderEnv; home: string } {
  const homeDir = tempDir('home-');
  const home = join(homeDir, '.talaria');
  mkdirSync(home);
  if (config !== undefined) writeFileSync(join(home, 'config.json'), JSON.stringify(config));
  mkdirSync(join(homeDir, '.config', 'zed'), { recursive: true });
  writeFileSync(
    join(homeDir, '.config', 'zed', 'settings.json'),
    JSON.stringify({
      agent_servers: { 'Zed One': { type: 'custom', command: 'zed-one', env: { ZED_KEY: 'from-zed' } } },
    }),
  );
  mkdirSync(join(homeDir, '.jetbrains'));
  writeFileSync(
    join(homeDir, '.jetbrains', 'acp.json'),
    JSON.stringify({ agent_servers: { 'Jb One': { command: 'jb-one', env: { JB_KEY: 'from-jetbrains' } } } }),
  );
  const env: Record<string, string> = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: homeDir, TALARIA_HOME: home };
  for (const n of AMBIENT) env[n] = ambientValue(n);
  return { ctx: { env, homeDir, platform: process.platform }, home };
}

/** The env the agent process really starts with (a node child printing its env), with our env holding the ambient keys. */
async function childEnv(
  provider: Provider,
  ctx: ProviderEnv,
  workspaceEnv: Record<string, string> = {},
): Promise<Record<string, string>> {
  const saved = { ...process.env };
  Object.assign(process.env, ctx.env);
  try {
    const p = await spawnAgent({
      command: process.execPath,
      args: ['-e', 'process.stdout.write(JSON.stringify(process.env))'],
      cwd: ctx.homeDir,
      env: agentEnv(provider, ctx, workspaceEnv),
    });
    let out = '';
    p.stdout.setEncoding('utf8');
    p.stdout.on('data', (c: string) => (out += c));
    await p.exited;
    await new Promise<void>((r) => (p.stdout.readableEnded ? r() : p.stdout.once('end', () => r())));
    return JSON.parse(out) as Record<string, string>;
  } finally {
    for (const k of Object.keys(process.env)) if (!(k in saved)) delete process.env[k];
    Object.assign(process.env, saved);
  }
}

const leaked = (env: Record<string, string>, except: string[] = []) =>
  Object.entries(env)
    .filter(([k, v]) => v.startsWith('ambient-') && !except.includes(k))
    .map(([k]) => k);

const IDS = [
  ...builtinProviders({ demo: { command: 'demo', args: [] } }).map((p) => p.id),
  'mine',
  'zed:zed-one',
  'jetbrains:jb-one',
];

describe('an agent gets only the allow-list plus what the user configured for it', () => {
  it('covers every built-in (the test list below is complete)', () => {
    expect(IDS).toEqual([
      'hermes',
      'claude-code',
      'codex',
      'gemini',
      'opencode',
      'kimi',
      'qwen',
      'copilot',
      'kilo',
      'pi',
      'cursor',
      'demo',
      'mine',
      'zed:zed-one',
      'jetbrains:jb-one',
    ]);
  });

  for (const id of IDS) {
    it(`${id}: no ambient credential reaches the process; its configured env and passEnv do, and the workspace's`, async () => {
      const plain = machine({ agents: { mine: { command: 'mine' } } });
      const reg = loadRegistry(plain.ctx, { demo: { command: 'demo', args: [] } }).registry;
      const bare = await childEnv(reg.require(id), plain.ctx);
      expect(leaked(bare)).toEqual([]);
      expect(bare.PATH).toBe(plain.ctx.env.PATH);

      // The user's word: values in config.json, or a name of ours to hand on.
      const agentConf = { env: { CONFIGURED: `for-${id}` }, passEnv: ['GH_TOKEN'] };
      const configured = machine({
        agents: {
          ...(id.includes(':') ? {} : { [id]: id === 'mine' ? { command: 'mine', ...agentConf } : agentConf }),
        },
      });
      const r = loadRegistry(configured.ctx, { demo: { command: 'demo', args: [] } });
      expect(r.problems).toEqual([]);
      const env = await childEnv(r.registry.require(id), configured.ctx, { WS_ONLY: 'w' });
      expect(env.WS_ONLY).toBe('w');
      if (id.startsWith('zed:')) expect(env.ZED_KEY).toBe('from-zed');
      else if (id.startsWith('jetbrains:')) expect(env.JB_KEY).toBe('from-jetbrains');
      else {
        expect(env.CONFIGURED).toBe(`for-${id}`);
        expect(env.GH_TOKEN).toBe(ambientValue('GH_TOKEN'));
      }
      expect(leaked(env, ['GH_TOKEN'])).toEqual([]);
    });
  }

  it('non-secret settings still pass (where the agent keeps its config); a secret-looking name in inherit never does', () => {
    const { ctx } = machine();
    ctx.env.CODEX_HOME = '/c';
    ctx.env.OPENAI_BASE_URL = 'http://127.0.0.1:9/v1';
    ctx.env.COPILOT_MODEL = 'm';
    const reg = loadRegistry(ctx).registry;
    expect(agentEnv(reg.require('codex'), ctx)).toEqual({ CODEX_HOME: '/c', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' });
    expect(agentEnv(reg.require('copilot'), ctx)).toEqual({ COPILOT_MODEL: 'm' });
    const sneaky = {
      ...reg.require('codex'),
      env: { inherit: ['OPENAI_API_KEY', 'CODEX_HOME'], pass: [], set: {} },
    } as Provider;
    expect(agentEnv(sneaky, ctx)).toEqual({ CODEX_HOME: '/c' });
  });

  it('config.json: an entry without a command for an unknown agent, or with fields that do not apply, is reported', () => {
    const { ctx } = machine({
      agents: {
        nobody: { env: { A: '1' } },
        codex: { passEnv: ['OPENAI_API_KEY'], label: 'x' },
        bad: { command: 'b', passEnv: ['not a name'] },
      },
    });
    const r = loadRegistry(ctx);
    expect(r.problems).toEqual([
      'agent "codex": without "command" only "env" and "passEnv" apply (they configure the built-in agent "codex"); ignored: label',
      expect.stringMatching(/^agent "bad" skipped: passEnv\.0: not an environment variable name/),
      'agent "nobody" skipped: no "command", and there is no built-in agent "nobody" to configure',
    ]);
    expect(agentEnv(r.registry.require('codex'), ctx)).toEqual({ OPENAI_API_KEY: ambientValue('OPENAI_API_KEY') });
    expect(r.registry.require('codex').label).toBe('Codex');
  });
});
