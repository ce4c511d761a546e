import { describe, it, expect } from 'vitest';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf } from './imports.js';
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

export function runtimeGraph(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of importsOf(readFileSync(file, 'utf8'))) {
      if (imp.typeOnly) continue;
      if (imp.spec.startsWith('.')) {
        const target = resolve(dirname(file), imp.spec.replace(/\.js$/, '.ts'));
        if (!existsSync(target)) throw new Error(`${relative(SRC, file)}: cannot resolve ${imp.spec}`);
        todo.push(target);
      } else if (!imp.spec.startsWith('node:'))
        packages.add(imp.spec.startsWith('@') ? imp.spec.split('/').slice(0, 2).join('/') : imp.spec.split('/')[0]!);
    }
  }
  return { files: [...files].map((f) => relative(SRC, f).split(sep).join('/')).sort(), packages: [...packages].sort() };
}

/** Leaves of providers/ the run's printer reads (a Hermes delegation card): they import nothing (layers.test.ts checks). */
const LIGHT = new Set(WIRE_META_READERS.map((f) => f.replace(/^src\//, '')));

function heavy(g: { files: string[]; packages: string[] }): string[] {
  return [
    ...g.packages.filter((p) => HEAVY_PACKAGES.includes(p)),
    ...g.files.filter((f) => !LIGHT.has(f) && HEAVY_FOLDERS.some((h) => f === h || f.startsWith(`${h}/`))),
  ];
}

describe('the fast path loads nothing heavy', () => {
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
