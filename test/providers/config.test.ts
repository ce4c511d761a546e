import { chmodSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bindWorkspace,
  emptyConfig,
  loadConfig,
  parseConfig,
  resolveProvider,
  saveConfig,
  workspaceBinding,
} from '../../src/providers/config.js';
import { talariaHome } from '../../src/os/home.js';
import { cleanup, tempDir } from './helpers.js';

afterEach(cleanup);

describe('config.json', () => {
  it('parses agents, default provider, workspaces and imports; bad entries are skipped and named', () => {
    const { config, problems } = parseConfig(`{
      // comments are fine
      "defaultProvider": "claude-code",
      "agents": {
        "my-agent": { "command": "my-agent", "args": ["--acp"], "env": { "K": "v" }, "maxConcurrentTurns": 1 },
        "broken": { "args": ["x"] },
        "worse": { "command": "x", "env": { "N": 1 } },
      },
      "workspaces": { "/proj": { "provider": "hermes", "profile": "work", "env": { "A": "1" } }, "/bad": { "profile": 3 } },
      "imports": { "zed": false }
    }`);
    expect(config.defaultProvider).toBe('claude-code');
    expect(config.agents).toEqual({
      'my-agent': { command: 'my-agent', args: ['--acp'], env: { K: 'v' }, maxConcurrentTurns: 1 },
    });
    expect(config.workspaces).toEqual({ '/proj': { provider: 'hermes', profile: 'work', env: { A: '1' } } });
    expect(config.imports).toEqual({ zed: false, jetbrains: true });
    expect(problems).toHaveLength(3);
    expect(problems[0]).toMatch(/^agent "broken" skipped: no "command"/);
    expect(problems[1]).toMatch(/^agent "worse" skipped: env\.N:/);
    expect(problems[2]).toMatch(/^workspace "\/bad" skipped: profile:/);
  });

  it('warm: a boolean turns the warm pool on or off; anything else is named and ignored', () => {
    expect(parseConfig('{"warm": false}')).toEqual({ config: expect.objectContaining({ warm: false }), problems: [] });
    expect(parseConfig('{}').config.warm).toBeUndefined();
    const bad = parseConfig('{"warm": "no"}');
    expect(bad.config.warm).toBeUndefined();
    expect(bad.problems).toEqual(['warm must be true or false']);
  });

  it('store: a postgres:// URL or an absolute database file; anything else is named and ignored', () => {
    const url = 'postgres://talaria@db.internal:5432/talaria';
    expect(parseConfig(JSON.stringify({ store: url })).config.store).toBe(url);
    expect(parseConfig('{"store": "postgresql://db/t"}').config.store).toBe('postgresql://db/t');
    expect(parseConfig('{"store": "/srv/talaria/talaria.db"}').config.store).toBe('/srv/talaria/talaria.db');
    for (const bad of ['"talaria.db"', '"mysql://x/y"', '5']) {
      const r = parseConfig(`{"store": ${bad}}`);
      expect(r.config.store).toBeUndefined();
      expect(r.problems).toEqual([
        'store must be a postgres:// URL or the absolute path of a database file (ignored: the default store is used)',
      ]);
    }
    // Saved with the rest (commands that rewrite config.json keep it).
    const home = tempDir();
    saveConfig(home, { ...emptyConfig(), store: url });
    expect(loadConfig(home).config.store).toBe(url);
  });

  it('never throws on a broken file', () => {
    expect(parseConfig('{ nope').problems[0]).toMatch(/^config\.json is not valid JSON: .*\(line 1, column \d+\)$/);
    expect(parseConfig('[]').problems).toEqual(['config.json must be a JSON object']);
    expect(loadConfig(tempDir()).config).toEqual(emptyConfig());
  });

  it('round-trips through an atomic save; a workspace binds a provider and a profile', () => {
    const home = tempDir();
    const bound = bindWorkspace(emptyConfig(), '/proj/app', { provider: 'hermes', profile: 'work' });
    const file = saveConfig(home, bound);
    expect(file).toBe(join(home, 'config.json'));
    // It may hold keys: private, in a private home, also when an older file was world-readable.
    expect([statSync(file).mode & 0o777, statSync(home).mode & 0o777]).toEqual([0o600, 0o700]);
    chmodSync(file, 0o644);
    chmodSync(home, 0o755);
    saveConfig(home, bound);
    expect([statSync(file).mode & 0o777, statSync(home).mode & 0o777]).toEqual([0o600, 0o700]);
    expect(JSON.parse(readFileSync(file, 'utf8')).workspaces).toEqual({
      '/proj/app': { provider: 'hermes', profile: 'work' },
    });
    expect(loadConfig(home).config).toEqual(bound);
    const rebound = bindWorkspace(bound, '/proj/app', { profile: undefined });
    expect(rebound.workspaces['/proj/app']).toEqual({ provider: 'hermes' });
  });

  it('finds the nearest configured ancestor of a workspace', () => {
    const c = {
      ...emptyConfig(),
      workspaces: { '/a': { provider: 'codex' }, '/a/b': { provider: 'hermes' }, '/ab': { provider: 'gemini' } },
    };
    expect(workspaceBinding(c, '/a/b/c')?.path).toBe('/a/b');
    expect(workspaceBinding(c, '/a/x')?.path).toBe('/a');
    expect(workspaceBinding(c, '/abc')).toBeUndefined();
  });

  it('resolves the provider: session override > workspace > default > hermes', () => {
    const c = {
      ...emptyConfig(),
      defaultProvider: 'codex',
      workspaces: { '/w': { provider: 'hermes', profile: 'work' }, '/p': { profile: 'solo' } },
    };
    expect(resolveProvider(c, { workspace: '/w/x' })).toEqual({
      provider: 'hermes',
      profile: 'work',
      from: 'workspace',
    });
    expect(resolveProvider(c, { workspace: '/w', override: { provider: 'gemini' } })).toEqual({
      provider: 'gemini',
      from: 'session',
    });
    expect(resolveProvider(c, { workspace: '/w', override: { provider: 'hermes' } })).toEqual({
      provider: 'hermes',
      profile: 'work',
      from: 'session',
    });
    expect(resolveProvider(c, { workspace: '/w', override: { profile: 'other' } })).toEqual({
      provider: 'hermes',
      profile: 'other',
      from: 'workspace',
    });
    expect(resolveProvider(c, { workspace: '/elsewhere' })).toEqual({ provider: 'codex', from: 'default' });
    expect(resolveProvider(c, { workspace: '/p' })).toEqual({ provider: 'codex', profile: 'solo', from: 'default' });
    expect(resolveProvider(emptyConfig(), { workspace: '/x' })).toEqual({ provider: 'hermes', from: 'builtin' });
  });

  it('TALARIA_HOME or ~/.talaria', () => {
    expect(talariaHome({ env: { TALARIA_HOME: '/t' }, homeDir: '/h' })).toBe('/t');
    expect(talariaHome({ env: {}, homeDir: '/h' })).toBe('/h/.talaria');
  });
});
