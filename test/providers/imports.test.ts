import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  importJetBrainsAgents,
  importZedAgents,
  jetbrainsAcpPath,
  parseJetBrainsAcp,
  parseZedSettings,
  zedSettingsPath,
} from '../../src/providers/imports.js';
import { parseJsonc } from '../../src/providers/jsonc.js';
import { cleanup, isolatedEnv, tempDir } from './helpers.js';

afterEach(cleanup);

const ZED = `// Zed settings
{
  "theme": "One Dark", /* block
  comment */
  "agent_servers": {
    "My Agent": { "type": "custom", "command": "~/bin/my-agent", "args": ["--acp", "// not a comment"], "env": { "TOKEN": "t", "N": 1 } },
    "Old Style": { "command": { "path": "/usr/bin/old", "args": ["acp"], "env": {} } },
    "claude-acp": { "type": "registry" },
    "gemini": { "default_mode": "yolo" },
    "Bad": { "command": "x", "args": "nope" },
  },
}
`;

describe('JSON with comments', () => {
  it('drops comments and trailing commas, never inside strings', () => {
    expect(parseJsonc('{"a": "x // y", /* c */ "b": [1, 2,], // t\n}')).toEqual({ a: 'x // y', b: [1, 2] });
    expect(parseJsonc('{"u": "http://x/*y*/", "q": "a\\"b,}"}')).toEqual({ u: 'http://x/*y*/', q: 'a"b,}' });
    expect(() => parseJsonc('{\n\n  nope')).toThrow(/line 3/);
  });

  it('a syntax error is named, with its line and column (jsonc-parser)', () => {
    expect(() => parseJsonc('{\n  "a": 1\n  "b": 2\n}')).toThrow(/^comma expected \(line 3, column 3\)$/);
    expect(() => parseJsonc('{ "a": /* never closed ')).toThrow(/unexpected end of comment \(line 1/);
    expect(() => parseJsonc('')).toThrow(/value expected/);
    expect(parseJsonc('\uFEFF{"a": [1,],}')).toEqual({ a: [1] });
  });
});

describe("Zed's agent_servers", () => {
  it('imports custom agents (both shapes) and says why the others are skipped', () => {
    const r = parseZedSettings(ZED);
    expect(r.agents).toEqual([
      { name: 'My Agent', command: '~/bin/my-agent', args: ['--acp', '// not a comment'], env: { TOKEN: 't', N: '1' } },
      { name: 'Old Style', command: '/usr/bin/old', args: ['acp'] },
    ]);
    expect(r.skipped).toEqual([
      { name: 'claude-acp', reason: 'managed by the editor (type "registry")' },
      { name: 'gemini', reason: 'no command' },
      { name: 'Bad', reason: '"args" is not a list of strings' },
    ]);
    expect(parseZedSettings('{"theme": "x"}')).toEqual({ agents: [], skipped: [] });
    expect(parseZedSettings('{ oops').error).toMatch(/^not valid JSON/);
  });

  it('reads ~/.config/zed/settings.json (or $XDG_CONFIG_HOME/zed); a missing file is no agents', () => {
    const ctx = isolatedEnv();
    expect(zedSettingsPath(ctx)).toBe(join(ctx.homeDir, '.config', 'zed', 'settings.json'));
    expect(importZedAgents(ctx)).toEqual({ agents: [], skipped: [] });
    mkdirSync(join(ctx.homeDir, '.config', 'zed'), { recursive: true });
    writeFileSync(zedSettingsPath(ctx), ZED);
    expect(importZedAgents(ctx).agents.map((a) => a.name)).toEqual(['My Agent', 'Old Style']);
    const xdg = tempDir('xdg-');
    expect(zedSettingsPath({ ...ctx, env: { XDG_CONFIG_HOME: xdg } })).toBe(join(xdg, 'zed', 'settings.json'));
    expect(zedSettingsPath({ ...ctx, platform: 'win32', env: { APPDATA: 'C:\\AppData' } })).toMatch(
      /Zed.settings\.json$/,
    );
  });
});

describe("JetBrains' acp.json", () => {
  it('imports ~/.jetbrains/acp.json agent_servers', () => {
    const ctx = isolatedEnv();
    mkdirSync(join(ctx.homeDir, '.jetbrains'));
    writeFileSync(
      jetbrainsAcpPath(ctx),
      JSON.stringify({
        agent_servers: {
          'Example Agent': { command: '/path/to/agent', args: ['acp'], env: { API_KEY: 'k' }, use_idea_mcp: false },
        },
      }),
    );
    const r = importJetBrainsAgents(ctx);
    expect(r.file).toBe(join(ctx.homeDir, '.jetbrains', 'acp.json'));
    expect(r.agents).toEqual([
      { name: 'Example Agent', command: '/path/to/agent', args: ['acp'], env: { API_KEY: 'k' } },
    ]);
    expect(parseJetBrainsAcp('{"agent_servers": {"x": 3}}').skipped).toEqual([{ name: 'x', reason: 'not an object' }]);
  });
});
