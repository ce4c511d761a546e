/**
 * The real npm ACP adapters for Claude Code and Codex, installed on demand, started with a fresh
 * HOME and no credentials: Talaria must reach `initialize` and report a clean auth gap.
 * Skipped (with the reason) only when the install fails.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claudeCode, codex } from '../../src/providers/builtin.js';
import { probeProvider } from '../../src/providers/probe.js';
import { AgentHost } from '../../src/host/host.js';
import { createRegistry } from '../../src/providers/registry.js';
import type { ProviderEnv } from '../../src/providers/types.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import { installAgent, type Installed } from './agents-cache.js';
import { cleanup, tempDir } from './helpers.js';

afterAll(cleanup);

/** A fresh machine: new HOME and XDG folders, no credentials, only our install folder and system PATH. */
function fresh(binDir: string): { ctx: ProviderEnv; env: Record<string, string> } {
  const home = tempDir('agent-home-');
  mkdirSync(join(home, '.codex'));
  const env: Record<string, string> = {
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    CODEX_HOME: join(home, '.codex'),
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
  const ctx: ProviderEnv = { env: { PATH: process.env.PATH, ...env }, homeDir: home, platform: process.platform, searchPath: [binDir] };
  return { ctx, env };
}

const noStack = (text: string) => expect(text).not.toMatch(/\n\s+at |Traceback|node:internal/);

describe.each([
  { provider: claudeCode, pkg: '@zed-industries/claude-agent-acp', version: '0.23.1', bin: 'claude-agent-acp', agentName: '@zed-industries/claude-agent-acp' },
  { provider: codex, pkg: '@zed-industries/codex-acp', version: '0.16.0', bin: 'codex-acp', agentName: 'codex-acp' },
])('$pkg@$version (real, offline, no credentials)', ({ provider, pkg, version, bin, agentName }) => {
  let installed: Installed | { error: string };
  beforeAll(async () => {
    installed = await installAgent(pkg, version, bin);
  }, 300_000);

  it('reaches initialize and reports a clean auth gap', async (t) => {
    if ('error' in installed) return t.skip(installed.error);
    const { ctx, env } = fresh(installed.bin);
    const r = await probeProvider(provider, ctx, { env, timeoutMs: 60_000 });
    expect(r.found).toBe(true);
    expect(r.version).toBe(version);
    expect(r.initialized).toBe(true);
    expect(r.agentInfo?.name).toBe(agentName);
    expect(r.ready).toBe(false);
    expect(r.gaps.map((g) => g.code), JSON.stringify(r.gaps)).toEqual(["auth"]);
    for (const g of r.gaps) noStack(`${g.message} ${g.fix}`);
  }, 90_000);

  it('through the host: no credentials is an auth_required error, never a crash', async (t) => {
    if ('error' in installed) return t.skip(installed.error);
    const { ctx, env } = fresh(installed.bin);
    const host = new AgentHost({ registry: createRegistry(), env: ctx, workspaceEnv: () => env, setupTimeoutMs: 60_000 });
    try {
      const ws = tempDir('ws-');
      const opened = await host.newSession({ provider: provider.id, workspace: ws }).catch((e: unknown) => e);
      if (opened instanceof Error) {
        // codex refuses the session itself.
        expect(isTalariaError(opened, 'auth_required')).toBe(true);
        expect(opened.message).toMatch(/^Codex needs credentials: Authentication required/);
      } else {
        // Claude's adapter opens the session and fails the first prompt.
        const s = opened as import('../../src/session/session.js').Session;
        const r = await s.prompt('hello').result;
        expect(r.error).toMatchObject({ code: 'auth_required' });
        expect(r.error!.message).toMatch(/^Claude Code needs credentials: Authentication required/);
        expect(s.state).toBe('idle');
      }
      expect(host.agents()[0]).toMatchObject({ state: 'running', crashes: 0 });
    } finally {
      await host.shutdown();
    }
  }, 90_000);
});
