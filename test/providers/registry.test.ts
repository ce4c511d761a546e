import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createRegistry, loadRegistry } from '../../src/providers/registry.js';
import { emptyConfig } from '../../src/providers/config.js';
import { customProvider, slugify } from '../../src/providers/custom.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import { cleanup, isolatedEnv, script, tempDir } from './helpers.js';

afterEach(cleanup);

describe('provider registry', () => {
  it('lists the built-ins, Hermes first, and the demo agent when its command is given', () => {
    expect(
      createRegistry()
        .list()
        .map((p) => p.id),
    ).toEqual([
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
    ]);
    const reg = createRegistry({ demo: { command: '/usr/bin/node', args: ['demo.js'] } });
    expect(reg.get('demo')).toMatchObject({ label: 'Demo agent', source: 'builtin' });
  });

  it("adds the user's agents (which may replace a built-in) and imported ones under zed:/jetbrains: ids", () => {
    const config = {
      ...emptyConfig(),
      agents: {
        'my-agent': { command: 'my-agent', args: ['--acp'] },
        gemini: { command: '/opt/gemini', args: ['--acp'] },
      },
    };
    const reg = createRegistry({
      config,
      imported: {
        zed: {
          agents: [
            { name: 'My Agent', command: 'x' },
            { name: 'hermes', command: 'y' },
          ],
          skipped: [],
        },
        jetbrains: { agents: [{ name: 'Example Agent', command: 'z' }], skipped: [] },
      },
    });
    expect(reg.list().map((p) => `${p.id}:${p.source}`)).toEqual([
      'hermes:builtin',
      'claude-code:builtin',
      'codex:builtin',
      'gemini:config',
      'opencode:builtin',
      'kimi:builtin',
      'qwen:builtin',
      'copilot:builtin',
      'kilo:builtin',
      'pi:builtin',
      'cursor:builtin',
      'my-agent:config',
      'zed:my-agent:zed',
      'zed:hermes:zed',
      'jetbrains:example-agent:jetbrains',
    ]);
    const err = (() => {
      try {
        reg.require('nope');
      } catch (e) {
        return e;
      }
    })();
    expect(isTalariaError(err, 'invalid_argument')).toBe(true);
  });

  it('a user-defined agent locates its command (~ expanded, PATH searched) and carries its env', async () => {
    const ctx = isolatedEnv();
    const bin = script(join(ctx.homeDir, 'bin', 'my-agent'), 'exit 0');
    const p = customProvider({
      name: 'My Agent',
      command: '~/bin/my-agent',
      args: ['--acp', '~/x'],
      env: { TOKEN: 'secret' },
      maxConcurrentTurns: 1,
      fs: false,
    });
    expect(p.id).toBe('my-agent');
    expect(await p.locate(ctx)).toEqual({ command: bin, args: ['--acp', join(ctx.homeDir, 'x')], via: 'config' });
    expect(p.env.set).toEqual({ TOKEN: 'secret' });
    expect(p.maxConcurrentTurns).toBe(1);
    expect(p.clientCaps).toEqual({ fs: { read: false, write: false } });
    expect(await customProvider({ name: 'x', command: 'not-installed-anywhere' }).locate(ctx)).toBeUndefined();
    const r = await customProvider({ name: 'x', command: 'not-installed-anywhere' }).readiness(ctx);
    expect(r.gaps[0]).toMatchObject({ code: 'not_installed' });
    expect(slugify('Ünïcode Agent!! v2')).toBe('unicode-agent-v2');
  });

  it('loads config.json and the editors from disk, reporting what it could not use', () => {
    const ctx = isolatedEnv();
    const home = tempDir('talaria-');
    writeFileSync(join(home, 'config.json'), JSON.stringify({ agents: { mine: { command: 'mine' } } }));
    mkdirSync(join(ctx.homeDir, '.jetbrains'));
    writeFileSync(join(ctx.homeDir, '.jetbrains', 'acp.json'), '{ broken');
    const { registry, problems } = loadRegistry(ctx, { home });
    expect(registry.has('mine')).toBe(true);
    expect(problems).toEqual([
      expect.stringMatching(/^jetbrains agents not imported from .*acp\.json: not valid JSON/),
    ]);
  });
});
