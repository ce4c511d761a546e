/**
 * Sign-in pieces: what each shape of ACP auth method means (agent, ACP terminal, the Claude
 * adapters' `_meta` terminal-auth, env_var), the `auth` gap and its `talaria login` fix, and the
 * auth_required mark that readiness turns into that gap.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  authGap,
  authKind,
  authMethodInfos,
  clearAuthMark,
  markAuthRequired,
  readAuthMark,
  terminalLaunch,
  withAuthMark,
} from '../../src/providers/auth.js';
import { defineProvider } from '../../src/providers/define.js';
import type { Readiness } from '../../src/providers/types.js';
import { cleanup, isolatedEnv, tempDir } from './helpers.js';

afterEach(cleanup);

const HERMES_SETUP = { id: 'hermes-setup', name: 'Hermes setup', type: 'terminal', args: ['--setup'] };
const CLAUDE_LOGIN = {
  id: 'claude-login',
  name: 'Log in with Claude Code',
  description: 'Run `claude /login` in a terminal',
  _meta: {
    'terminal-auth': {
      command: 'node',
      args: ['cli.js', '/login'],
      env: { A: '1', BAD: 2 },
      label: 'Claude Code login',
    },
  },
};
const CODEX_KEY = {
  id: 'openai-api-key',
  name: 'Use OPENAI_API_KEY',
  type: 'env_var',
  vars: [{ name: 'OPENAI_API_KEY' }, { name: 'CODEX_API_KEY' }],
};
const GATEWAY = { id: 'gemini-api-key', name: 'Use Gemini API key' };

describe('auth methods', () => {
  it('each shape gets its kind, and terminal ones how to run them', () => {
    expect([HERMES_SETUP, CLAUDE_LOGIN, CODEX_KEY, GATEWAY].map(authKind)).toEqual([
      'terminal',
      'terminal',
      'env_var',
      'agent',
    ]);
    expect(terminalLaunch(HERMES_SETUP)).toEqual({ args: ['--setup'], env: {} });
    // Only string env values are kept; the command is the agent's own one, not Talaria's guess.
    expect(terminalLaunch(CLAUDE_LOGIN)).toEqual({
      command: 'node',
      args: ['cli.js', '/login'],
      env: { A: '1' },
      label: 'Claude Code login',
    });
    expect(terminalLaunch(GATEWAY)).toBeUndefined();
    expect(terminalLaunch(CODEX_KEY)).toBeUndefined();
  });

  it('infos keep ids, names, kinds and variable names, never env values or _meta; entries without an id are skipped', () => {
    expect(authMethodInfos([HERMES_SETUP, CLAUDE_LOGIN, CODEX_KEY, { name: 'no id' }, null, 'x'])).toEqual([
      { id: 'hermes-setup', name: 'Hermes setup', kind: 'terminal' },
      {
        id: 'claude-login',
        name: 'Log in with Claude Code',
        kind: 'terminal',
        description: 'Run `claude /login` in a terminal',
      },
      { id: 'openai-api-key', name: 'Use OPENAI_API_KEY', kind: 'env_var', vars: ['OPENAI_API_KEY', 'CODEX_API_KEY'] },
    ]);
  });

  it('the gap: one runnable method → `talaria login ID METHOD`; several → METHOD with the choices; only env vars → where to set them', () => {
    const p = { id: 'codex', label: 'Codex' };
    expect(
      authGap(p, {
        message: 'the agent needs credentials: no key; sign in with one of: openai-api-key',
        methods: authMethodInfos([CODEX_KEY, GATEWAY]),
      }),
    ).toEqual({
      code: 'auth',
      message:
        'Codex needs credentials: no key. Sign-in methods: openai-api-key — Use OPENAI_API_KEY (set OPENAI_API_KEY or CODEX_API_KEY), gemini-api-key — Use Gemini API key (agent).',
      fix: 'talaria login codex gemini-api-key',
      authMethods: authMethodInfos([CODEX_KEY, GATEWAY]),
    });
    expect(authGap(p, { methods: authMethodInfos([HERMES_SETUP, GATEWAY]) }).fix).toBe(
      'talaria login codex METHOD (one of: hermes-setup, gemini-api-key)',
    );
    expect(authGap(p, { methods: authMethodInfos([CODEX_KEY]) }).fix).toBe(
      'Set OPENAI_API_KEY or CODEX_API_KEY in agents."codex".env of config.json, then try again.',
    );
    expect(authGap(p, { methods: [] })).toMatchObject({
      message: 'Codex needs you to sign in. It lists no sign-in method.',
      fix: 'talaria login codex, or log in to Codex in a terminal, then try again.',
    });
  });
});

describe('the auth_required mark', () => {
  const ready = (id: string): Readiness => ({
    providerId: id,
    label: id,
    found: true,
    ready: true,
    gaps: [],
    warnings: [],
  });
  const provider = (id: string, r: Readiness = ready(id)) =>
    defineProvider({ id, label: id, locate: async () => undefined, readiness: async () => r });

  it('written whole, read back, cleared; per profile for agents with profiles', () => {
    const home = tempDir();
    expect(readAuthMark(home, 'pi')).toBeUndefined();
    markAuthRequired(home, {
      providerId: 'pi',
      message: 'pi needs credentials',
      authMethods: [HERMES_SETUP],
      where: 'session/new',
    });
    markAuthRequired(home, {
      providerId: 'hermes',
      profile: 'work',
      message: 'run hermes setup',
      authMethods: [],
      where: 'session/new',
    });
    expect(readAuthMark(home, 'pi')).toMatchObject({
      providerId: 'pi',
      message: 'pi needs credentials',
      methods: [{ id: 'hermes-setup', kind: 'terminal' }],
      where: 'session/new',
    });
    expect(readAuthMark(home, 'hermes')).toBeUndefined();
    expect(readAuthMark(home, 'hermes', 'work')).toMatchObject({ profile: 'work' });
    clearAuthMark(home, 'pi');
    expect(readAuthMark(home, 'pi')).toBeUndefined();
    clearAuthMark(home, 'pi'); // clearing twice is fine
  });

  it('readiness: a marked agent gets the auth gap and is not ready; unmarked, not found, or already with an auth gap: unchanged; a broken mark is no mark', async () => {
    const home = tempDir();
    const env = isolatedEnv();
    const p = withAuthMark(provider('pi'), home);
    expect(await p.readiness(env)).toEqual(ready('pi'));
    markAuthRequired(home, {
      providerId: 'pi',
      message: 'the agent needs credentials: Authentication required',
      authMethods: [HERMES_SETUP],
      where: 'session/prompt',
    });
    const r = await p.readiness(env);
    expect(r.ready).toBe(false);
    expect(r.gaps).toEqual([
      {
        code: 'auth',
        message:
          'pi needs credentials: Authentication required. Sign-in methods: hermes-setup — Hermes setup (terminal).',
        fix: 'talaria login pi hermes-setup',
        authMethods: [{ id: 'hermes-setup', name: 'Hermes setup', kind: 'terminal' }],
      },
    ]);

    const missing = {
      ...ready('pi'),
      found: false,
      ready: false,
      gaps: [{ code: 'not_installed' as const, message: 'not found', fix: 'install it' }],
    };
    expect(await withAuthMark(provider('pi', missing), home).readiness(env)).toEqual(missing);

    mkdirSync(join(home, 'auth'), { recursive: true });
    writeFileSync(join(home, 'auth', 'broken.json'), '{"provider');
    expect(await withAuthMark(provider('broken'), home).readiness(env)).toEqual(ready('broken'));
  });
});
