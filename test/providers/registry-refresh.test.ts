/**
 * The running registry follows `agents add|update|remove` (issue 13): refreshInstalled reads the
 * installed agents again; an agent that shadowed a built-in gives the built-in back when removed,
 * and other entries (an ad-hoc one the harness added) are left alone.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { customProvider } from '../../src/providers/custom.js';
import { manifestJson, installDir } from '../../src/providers/registry-acp/installed.js';
import { loadRegistry, refreshInstalled } from '../../src/providers/registry.js';
import { cleanup, isolatedEnv, tempDir } from './helpers.js';

afterEach(cleanup);

function install(home: string, id: string, version: string): void {
  const dir = installDir(home, id, version);
  mkdirSync(dir, { recursive: true });
  const m = {
    v: 1 as const,
    id,
    name: `Registry ${id}`,
    version,
    description: 'x',
    kind: 'binary' as const,
    command: join(dir, 'agent'),
    args: [],
    env: {},
    source: 'test',
    preview: false,
    installedAt: Date.now(),
  };
  writeFileSync(join(dir, 'talaria-agent.json'), manifestJson(m));
}

describe('refreshInstalled', () => {
  it('adds new installs, and on remove drops them and brings back the built-in one shadowed', () => {
    const ctx = isolatedEnv();
    const home = tempDir('talaria-');
    const { registry } = loadRegistry(ctx, { home });
    registry.add(customProvider({ name: 'adhoc', command: 'x' }, { id: 'cmd:adhoc' }));
    expect(registry.get('gemini')?.source).toBe('builtin');

    install(home, 'gemini', '1.0.0');
    install(home, 'new-agent', '2.0.0');
    expect(refreshInstalled(registry, ctx, { home }).sort()).toEqual(['gemini', 'new-agent']);
    expect(registry.get('gemini')).toMatchObject({ source: 'registry', label: 'Registry gemini' });
    expect(registry.get('new-agent')?.source).toBe('registry');

    rmSync(installDir(home, 'gemini', '1.0.0'), { recursive: true });
    rmSync(installDir(home, 'new-agent', '2.0.0'), { recursive: true });
    refreshInstalled(registry, ctx, { home });
    expect(registry.get('gemini')?.source).toBe('builtin');
    expect(registry.has('new-agent')).toBe(false);
    expect(registry.has('cmd:adhoc')).toBe(true);
    expect(registry.remove('nothing')).toBe(false);
  });
});
