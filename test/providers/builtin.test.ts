import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCode, codex, demoProvider, gemini, kimi, opencode } from '../../src/providers/builtin.js';
import { hermesProvider } from '../../src/providers/hermes/provider.js';
import { withUserEnv } from '../../src/providers/custom.js';
import { agentEnv, clientCapOptions, spawnOptions } from '../../src/providers/launch.js';
import { applyQuirks, choiceBeforeInit, launchFacts } from '../../src/providers/quirks/index.js';
import type { Provider } from '../../src/providers/types.js';
import { cleanup, isolatedEnv, script, tempDir } from './helpers.js';

/** What a built-in id gets before its agent has said anything (its expected name's set). */
const expected = (p: Provider) => applyQuirks(p, choiceBeforeInit(launchFacts(p, {})));

afterEach(cleanup);

function binWith(...names: string[]): string {
  const bin = tempDir('bin-');
  for (const n of names) script(join(bin, n), 'exit 0');
  return bin;
}

describe('built-in agent descriptors', () => {
  it('opencode and kimi run `<cmd> acp`; claude-code and codex are the npm adapters', async () => {
    const bin = binWith('opencode', 'kimi', 'claude-agent-acp', 'codex-acp');
    const ctx = isolatedEnv({ searchPath: [bin] });
    expect(await opencode.locate(ctx)).toEqual({ command: join(bin, 'opencode'), args: ['acp'], via: 'PATH' });
    expect(await kimi.locate(ctx)).toEqual({ command: join(bin, 'kimi'), args: ['acp'], via: 'PATH' });
    expect(await claudeCode.locate(ctx)).toEqual({ command: join(bin, 'claude-agent-acp'), args: [], via: 'PATH' });
    expect(await codex.locate(ctx)).toEqual({ command: join(bin, 'codex-acp'), args: [], via: 'PATH' });
    // The platform binary the npm wrapper would exec is preferred.
    script(join(bin, `codex-acp-${process.platform}-${process.arch}`), 'exit 0');
    expect((await codex.locate(ctx))?.command).toBe(join(bin, `codex-acp-${process.platform}-${process.arch}`));
    for (const p of [opencode, kimi, claudeCode, codex, gemini])
      expect(await p.locate(isolatedEnv({ env: { PATH: tempDir('e-') } }))).toBeUndefined();
  });

  it('gemini: `--experimental-acp` before 0.33, `--acp` from 0.33 on, and never fs read (its new-file bug)', async () => {
    const old = tempDir('old-');
    script(join(old, 'gemini'), 'echo 0.27.0');
    const now = tempDir('new-');
    script(join(now, 'gemini'), 'echo 0.61.0');
    expect((await gemini.locate(isolatedEnv({ searchPath: [old] })))?.args).toEqual(['--experimental-acp']);
    expect((await gemini.locate(isolatedEnv({ searchPath: [now] })))?.args).toEqual(['--acp']);
    expect(expected(gemini).caps).toEqual({ fs: { read: false, write: true }, terminal: true });
    expect(expected(claudeCode).caps).toEqual({
      fs: { read: true, write: true },
      terminal: true,
      clientCapabilityOverrides: { _meta: { 'terminal-auth': true } },
    });
    // The provider itself carries no capability switch of the agent's: that is its quirk set's.
    expect(clientCapOptions(gemini)).toEqual({ fs: { read: true, write: true }, terminal: true });
  });

  it('an agent gets its non-secret settings and switches from us, never our credentials (launch.test.ts covers every agent)', () => {
    const ctx = isolatedEnv({
      env: {
        ANTHROPIC_API_KEY: 'sk-ant',
        OPENAI_API_KEY: 'sk-oai',
        GITHUB_TOKEN: 'ghp',
        HERMES_HOME: '/h',
        ANTHROPIC_BASE_URL: 'http://gw',
      },
    });
    expect(agentEnv(claudeCode, ctx)).toEqual({ ANTHROPIC_BASE_URL: 'http://gw', DISABLE_AUTOUPDATER: '1' });
    expect(agentEnv(codex, ctx)).toEqual({});
    expect(agentEnv(hermesProvider, ctx, { WORKSPACE_VAR: 'x' })).toEqual({ HERMES_HOME: '/h', WORKSPACE_VAR: 'x' });
    const opts = spawnOptions(gemini, { command: '/bin/gemini', args: ['--acp'], via: 'PATH' }, ctx, { cwd: '/w' });
    expect(opts).toEqual({ command: '/bin/gemini', args: ['--acp'], cwd: '/w', env: { GEMINI_CLI_NO_RELAUNCH: '1' } });
    for (const p of [claudeCode, codex, gemini, opencode, kimi, hermesProvider]) expect(p.env.pass, p.id).toEqual([]);
  });

  it('readiness names the missing credential with the fix, without starting anything', async () => {
    const bin = binWith('codex-acp');
    const none = isolatedEnv({ searchPath: [bin] });
    const r = await codex.readiness(none);
    expect(r).toMatchObject({ found: true, ready: false });
    const config = join(none.homeDir, '.talaria', 'config.json');
    expect(r.gaps).toEqual([
      {
        code: 'auth',
        message: 'No credentials for Codex were found (OPENAI_API_KEY, CODEX_API_KEY unset).',
        fix: `Put OPENAI_API_KEY in agents."codex".env in ${config}, or run \`codex login\`.`,
      },
    ]);
    // A key in our env only is not the agent's: readiness says how to hand it on.
    const ours = isolatedEnv({ searchPath: [bin], env: { OPENAI_API_KEY: 'k' } });
    const r2 = await codex.readiness(ours);
    expect(r2.ready).toBe(false);
    expect(r2.gaps).toEqual([
      {
        code: 'auth',
        message:
          'OPENAI_API_KEY is set in your environment, but Talaria hands no credential of yours to Codex unless you say so.',
        fix: `Add "passEnv": ["OPENAI_API_KEY"] to agents."codex" in ${join(ours.homeDir, '.talaria', 'config.json')}, or run \`codex login\`.`,
      },
    ]);
    // Configured for the agent (config.json passEnv → the registry's copy of codex): ready.
    expect((await withUserEnv(codex, { passEnv: ['OPENAI_API_KEY'] }).readiness(ours)).ready).toBe(true);
    expect((await withUserEnv(codex, { env: { CODEX_API_KEY: 'c' } }).readiness(none)).ready).toBe(true);
    const home = tempDir('home-');
    mkdirSync(join(home, '.codex'));
    writeFileSync(join(home, '.codex', 'auth.json'), '{}');
    expect((await codex.readiness(isolatedEnv({ searchPath: [bin], homeDir: home }))).ready).toBe(true);
    const missing = await claudeCode.readiness(isolatedEnv({ env: { PATH: tempDir('e-') } }));
    expect(missing.gaps).toEqual([
      {
        code: 'not_installed',
        message: 'Claude Code was not found (not on PATH).',
        fix: 'Install the Claude Code ACP adapter: `npm install -g @zed-industries/claude-agent-acp`.',
      },
    ]);
  });

  it('describes each agent by the name it gives; the quirks come from that name (Hermes: cumulative usage and host quirks)', () => {
    expect(hermesProvider).toMatchObject({ agentName: 'hermes-agent', profiles: true });
    const h = expected(hermesProvider);
    expect(h).toMatchObject({
      usage: 'cumulative',
      sessionsSurviveRestart: true,
      choice: { set: { id: 'hermes-0.18' }, basis: 'provider' },
    });
    expect(h.host).toMatchObject({
      retryNewWithoutMcp: true,
      reseedOnOverflow: true,
      configBetweenTurns: true,
      reloadAfterSetModel: true,
    });
    expect(h.modeFor!('ask')).toBe('default');
    expect(h.modeFor!('accept-edits')).toBe('accept_edits');
    expect(h.modeFor!('auto')).toBe('dont_ask');
    const names: [Provider, string | undefined][] = [
      [claudeCode, '@zed-industries/claude-agent-acp'],
      [codex, 'codex-acp'],
      [gemini, 'gemini-cli'],
      [opencode, 'OpenCode'],
      [kimi, undefined],
    ];
    for (const [p, name] of names) {
      expect(p).toMatchObject({ profiles: false, maxConcurrentTurns: Number.POSITIVE_INFINITY });
      expect(p.agentName).toBe(name);
      const q = expected(p);
      expect(q.usage).toBe('per-turn');
      expect(q.host).toEqual({});
      expect(q.hooks()).toEqual(p === claudeCode ? { reopenAfterFailedTurn: true } : {});
    }
    const demo = demoProvider({ command: '/usr/bin/node', args: ['demo.js'] });
    return demo.readiness(isolatedEnv()).then((r) =>
      expect(r).toMatchObject({
        found: true,
        ready: true,
        command: { command: '/usr/bin/node', args: ['demo.js'], via: 'bundled' },
      }),
    );
  });
});
