import { describe, it, expect } from 'vitest';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runtimeGraph } from './imports.js';
import { WIRE_META_READERS } from './wire-meta.js';

/**
 * `talaria run` on a warm server (issue 16) starts like a native tool only while its path loads
 * nothing heavy: no zod (the contract's schemas), no ACP SDK, no SQLite, no harness, no Unicode width tables. This walks
 * the run-time import graph (type-only imports are erased; dynamic imports are followed) from
 * the fast path's entry and from the typed client, which the web UI also loads.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));
// string-width / wrap-ansi: their Unicode tables take ~90 ms to load; the run's printer needs neither.
const HEAVY_PACKAGES = [
  'zod',
  '@agentclientprotocol/sdk',
  'better-sqlite3',
  'hono',
  '@hono/node-server',
  'string-width',
  'wrap-ansi',
];
const HEAVY_FOLDERS = ['harness', 'host', 'store', 'session', 'protocol/connection.ts', 'providers'];

/** Leaves of providers/ the run's printer reads (a Hermes delegation card): they import nothing (layers.test.ts checks). */
const LIGHT = new Set(WIRE_META_READERS.map((f) => f.replace(/^src\//, '')));

function heavy(g: { files: string[]; packages: string[] }): string[] {
  return [
    ...g.packages.filter((p) => HEAVY_PACKAGES.includes(p)),
    ...g.files.filter((f) => !LIGHT.has(f) && HEAVY_FOLDERS.some((h) => f === h || f.startsWith(`${h}/`))),
  ];
}

/** Packages of one command, imported when that command runs (cli.ts loads them on demand). */
const ONE_COMMAND = [
  'hono',
  '@hono/node-server',
  'ws',
  'pg',
  'ajv',
  '@modelcontextprotocol/sdk',
  'adm-zip',
  'tar',
  'seek-bzip',
];

describe('the fast path loads nothing heavy', () => {
  it("every other command: loading the CLI imports no command's own packages (the server's, the fleet's, capabilities, the probe's checker, the installer's archive readers)", () => {
    const g = runtimeGraph(resolve(SRC, 'cli/cli.ts'), { followDynamic: false });
    expect(g.packages).toContain('@agentclientprotocol/sdk'); // the walk sees the CLI's packages
    expect(g.packages.filter((p) => ONE_COMMAND.includes(p) || p.startsWith('@endo/'))).toEqual([]);
    // Followed to the end, the same walk finds them (the check can fail).
    expect(runtimeGraph(resolve(SRC, 'cli/cli.ts')).packages).toEqual(expect.arrayContaining(['ajv', 'hono', 'tar']));
  });

  it('`talaria run` on a warm server: run-fast and what it imports, run-server included', () => {
    const g = runtimeGraph(resolve(SRC, 'cli/commands/run-fast.ts'));
    expect(g.files).toContain('cli/commands/run-server.ts');
    expect(g.files).toContain('server/client/index.ts');
    expect(heavy(g)).toEqual([]);
  });

  it('the typed client needs only the zod-free part of the contract at run time', () => {
    const g = runtimeGraph(resolve(SRC, 'server/client/index.ts'));
    expect(g.files.filter((f) => f.startsWith('server/contract/'))).toEqual(['server/contract/wire.ts']);
    expect(heavy(g)).toEqual([]);
  });

  it('the walk sees what the contract loads (the check can fail)', () => {
    const g = runtimeGraph(resolve(SRC, 'server/contract/index.ts'));
    expect(heavy(g)).toContain('zod');
    expect(heavy(g).some((f) => f.startsWith('session/'))).toBe(true);
  });
});
