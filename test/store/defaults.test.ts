/** Migration 002: the model and mode a person chose, per session and per workspace + agent. */
import { describe, it, expect } from 'vitest';
import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIGRATIONS, openStore } from '../../src/store/index.js';
import { openDatabase } from '../../src/store/db.js';
import { BACKENDS } from './backends.js';

const home = () => realpathSync(mkdtempSync(join(tmpdir(), 'talaria-defaults-')));

describe.each(BACKENDS)('session choices and agent defaults ($name)', (backend) => {
  it('a session keeps the model and mode chosen for it', () => {
    const s = backend.fresh();
    const row = s.sessions.create({ provider: 'demo', cwd: '/w' });
    expect(s.sessions.get(row.id)).not.toHaveProperty('modelId');
    s.sessions.setChoice(row.id, 'model', 'demo-thorough');
    s.sessions.setChoice(row.id, 'mode', 'auto');
    expect(s.sessions.get(row.id)).toMatchObject({ modelId: 'demo-thorough', modeId: 'auto' });
    s.sessions.setChoice(row.id, 'model', null);
    expect(s.sessions.get(row.id)).not.toHaveProperty('modelId');
    s.close();
  });

  it('defaults are per workspace, agent and profile; model and mode are set independently', () => {
    const s = backend.fresh();
    const a = s.workspaces.ensure({ path: '/a' }).id;
    const b = s.workspaces.ensure({ path: '/b' }).id;
    expect(s.defaults.get(a, 'demo')).toEqual({});
    s.defaults.set(a, 'demo', undefined, 'model', 'demo-thorough');
    s.defaults.set(a, 'demo', undefined, 'mode', 'auto');
    s.defaults.set(a, 'hermes', 'work', 'model', 'big');
    expect(s.defaults.get(a, 'demo')).toEqual({ modelId: 'demo-thorough', modeId: 'auto' });
    expect(s.defaults.get(a, 'hermes')).toEqual({});
    expect(s.defaults.get(a, 'hermes', 'work')).toEqual({ modelId: 'big' });
    expect(s.defaults.get(b, 'demo')).toEqual({});
    s.defaults.set(a, 'demo', undefined, 'model', 'demo-fast');
    expect(s.defaults.get(a, 'demo')).toEqual({ modelId: 'demo-fast', modeId: 'auto' });
    s.close();
  });
});

describe('session choices and agent defaults (sqlite migration)', () => {
  it('an existing version-1 store migrates and keeps its sessions', () => {
    const h = home();
    const v1 = openDatabase({ home: h, migrations: MIGRATIONS.filter((m) => m.version === 1) });
    v1.db
      .prepare("INSERT INTO sessions (id, provider, cwd, created_at, updated_at) VALUES ('old', 'demo', '/w', 1, 1)")
      .run();
    v1.db.close();
    const s = openStore({ home: h });
    expect(s.sessions.get('old')).toMatchObject({ id: 'old', provider: 'demo' });
    expect(s.sessions.setChoice('old', 'model', 'm')).toBe(true);
    expect(s.sessions.get('old')?.modelId).toBe('m');
    s.close();
  });
});
