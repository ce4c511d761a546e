/**
 * Built-in descriptors for the popular ACP agents other than Hermes (hermes/provider.ts) and the
 * bundled demo. Facts from specs/agents-offline.md: commands, env each agent reads, and the name
 * each gives itself in `initialize` (its quirks are in quirks/, chosen by that name).
 * An agent inherits only non-secret settings of ours (where its config lives, base URL, model);
 * its API key comes from its own login or from what the user configured for it in config.json
 * (`env`, or `passEnv` to hand on a variable of ours). The spawn env is an allow-list, which
 * also keeps e.g. IS_SANDBOX — fatal to the Claude adapters as root — out.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { defineProvider } from './define.js';
import { onPath, which } from './locate.js';
import { compareVersions, parseVersion } from './command-output.js';
import { runProgram } from '../os/run-program.js';
import { credentialGap } from './readiness.js';
import type { CommandSpec, Located, Provider, ProviderEnv } from './types.js';

export const claudeCode: Provider = defineProvider({
  id: 'claude-code',
  label: 'Claude Code',
  install: 'Install the Claude Code ACP adapter: `npm install -g @zed-industries/claude-agent-acp`.',
  npm: { package: '@zed-industries/claude-agent-acp', bin: 'claude-agent-acp' },
  // The current adapter, else the older one (same quirk set; it runs tools through the client).
  locate: async (ctx) => (await onPath('claude-agent-acp', [])(ctx)) ?? onPath('claude-code-acp', [])(ctx),
  agentName: '@zed-industries/claude-agent-acp',
  env: {
    inherit: ['ANTHROPIC_BASE_URL', 'ANTHROPIC_MODEL', 'CLAUDE_CONFIG_DIR'],
    // The adapter bundles Claude Code: it must not update itself under a running harness.
    set: { DISABLE_AUTOUPDATER: '1' },
  },
  check: {
    versionFromPackage: true,
    credentials: (ctx, agent) =>
      credentialGap(ctx, {
        label: 'Claude Code',
        vars: ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'],
        files: ['.claude/.credentials.json'],
        fix: 'run `claude` once and log in with /login.',
        agent,
      }),
  },
});

export const codex: Provider = defineProvider({
  id: 'codex',
  label: 'Codex',
  install: 'Install the Codex ACP adapter: `npm install -g @zed-industries/codex-acp`.',
  npm: { package: '@zed-industries/codex-acp', bin: 'codex-acp' },
  locate: async (ctx) => {
    // Prefer the platform binary the npm wrapper would start (one process fewer in the tree).
    const native = which(`codex-acp-${ctx.platform}-${process.arch}`, ctx);
    if (native) return { command: native, args: [], via: 'PATH' };
    const wrapper = which('codex-acp', ctx);
    return wrapper ? { command: wrapper, args: [], via: 'PATH' } : undefined;
  },
  agentName: 'codex-acp',
  env: { inherit: ['CODEX_HOME', 'OPENAI_BASE_URL'] },
  check: {
    versionFromPackage: true,
    credentials: (ctx, agent) =>
      credentialGap(ctx, {
        label: 'Codex',
        vars: ['OPENAI_API_KEY', 'CODEX_API_KEY'],
        files: [ctx.env.CODEX_HOME ? join(ctx.env.CODEX_HOME, 'auth.json') : '.codex/auth.json'],
        fix: 'run `codex login`.',
        agent,
      }),
  },
});

/** gemini-cli ≥ 0.33 calls the flag `--acp`; older releases only know `--experimental-acp`. */
export const GEMINI_ACP_FLAG_SINCE = '0.33.0';

export async function geminiArgs(command: string, ctx: ProviderEnv, timeoutMs = 10_000): Promise<string[]> {
  // Kept per environment (harness), and per file state: an upgrade in place is seen at once.
  const key = `gemini-version\u0000${command}\u0000${fileState(command)}`;
  let v = ctx.memo?.get(key) as string | null | undefined;
  if (v === undefined) {
    const r = await runProgram(command, ['--version'], { timeoutMs, parentEnv: ctx.env });
    v = parseVersion(r.stdout) ?? null;
    ctx.memo?.set(key, v);
  }
  return v && compareVersions(v, GEMINI_ACP_FLAG_SINCE) >= 0 ? ['--acp'] : ['--experimental-acp'];
}

function fileState(path: string): string {
  try {
    const s = statSync(path);
    return `${s.ino}:${s.size}:${s.mtimeMs}`;
  } catch {
    return '';
  }
}

export const gemini: Provider = defineProvider({
  id: 'gemini',
  label: 'Gemini CLI',
  install: 'Install Gemini CLI: `npm install -g @google/gemini-cli`.',
  npm: { package: '@google/gemini-cli', bin: 'gemini' },
  locate: async (ctx) => {
    const found = which('gemini', ctx);
    return found ? { command: found, args: await geminiArgs(found, ctx), via: 'PATH' } : undefined;
  },
  agentName: 'gemini-cli',
  env: {
    inherit: ['GOOGLE_GEMINI_BASE_URL', 'GOOGLE_CLOUD_PROJECT', 'GOOGLE_CLOUD_LOCATION', 'GOOGLE_GENAI_USE_VERTEXAI'],
    set: { GEMINI_CLI_NO_RELAUNCH: '1' },
  },
  check: {
    versionArgs: ['--version'],
    credentials: (ctx, agent) =>
      credentialGap(ctx, {
        label: 'Gemini CLI',
        vars: ['GEMINI_API_KEY', 'GOOGLE_API_KEY', 'GOOGLE_APPLICATION_CREDENTIALS'],
        files: ['.gemini/oauth_creds.json'],
        fix: 'run `gemini` once and sign in with Google.',
        agent,
      }),
  },
});

export const opencode: Provider = defineProvider({
  id: 'opencode',
  label: 'opencode',
  install: 'Install opencode: `npm install -g opencode-ai`.',
  npm: { package: 'opencode-ai', bin: 'opencode' },
  locate: onPath('opencode', ['acp']),
  agentName: 'OpenCode',
  env: {
    // Not OPENCODE_CONFIG_CONTENT: inline config may hold provider keys.
    inherit: ['OPENCODE_CONFIG'],
    set: { OPENCODE_DISABLE_AUTOUPDATE: '1' },
  },
  // opencode never fails without credentials: its prompt hangs on the unreachable model, which
  // only the host's stall watchdog catches. No static credential check is reliable here.
});

export const kimi: Provider = defineProvider({
  id: 'kimi',
  label: 'Kimi CLI',
  install: 'Install Kimi CLI (`uv tool install kimi-cli`) and run `kimi` once to log in.',
  locate: onPath('kimi', ['acp']),
  env: { inherit: ['KIMI_BASE_URL'] },
});

/** The bundled demo agent; its command is injected (providers may not import src/demo). */
export function demoProvider(command: CommandSpec): Provider {
  return defineProvider({
    id: 'demo',
    label: 'Demo agent',
    install: 'The demo agent ships with Talaria; reinstall talaria-acp if it is missing.',
    locate: async (): Promise<Located> => ({ command: command.command, args: [...command.args], via: 'bundled' }),
    check: { versionArgs: null },
  });
}
