import { describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf } from './imports.js';

/**
 * Import cycles in src/: files that import each other, directly or round a loop (type-only
 * imports count: a cycle of types is still two files that cannot be read apart). There are none
 * (issue 36 item 7 took 8 to 0): a new one fails here, named file by file.
 */
const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/** src/ as a graph: each file (relative, `/`-separated) → the src files it imports. */
function importGraph(src: string, o: { typeOnly: boolean }): Map<string, string[]> {
  const walk = (dir: string): string[] =>
    readdirSync(dir).flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
    });
  const rel = (p: string) => relative(src, p).split(sep).join('/');
  const graph = new Map<string, string[]>();
  for (const file of walk(src)) {
    const targets = new Set<string>();
    for (const imp of importsOf(readFileSync(file, 'utf8'))) {
      if (!imp.spec.startsWith('.') || (imp.typeOnly && !o.typeOnly)) continue;
      const target = resolve(dirname(file), imp.spec.replace(/\.js$/, '.ts'));
      if (existsSync(target)) targets.add(rel(target));
    }
    graph.set(rel(file), [...targets].sort());
  }
  return graph;
}

/** The import cycles: strongly connected components of more than one file (or a file importing itself), Tarjan's. */
export function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const scc: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      scc.push(w);
    } while (w !== v);
    if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) out.push(scc.sort());
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) visit(v);
  return out.sort((a, b) => b.length - a.length || a[0]!.localeCompare(b[0]!));
}

describe('import cycles', () => {
  it('src/ has no import cycles (type-only imports included)', () => {
    const found = cycles(importGraph(SRC, { typeOnly: true }));
    expect(found.map((c) => `${c.length}: ${c.join(' ')}`)).toEqual([]);
  });

  it('the checker finds loops of any length, self-imports, and nothing in a tree', () => {
    const g = new Map<string, string[]>([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', ['e.ts']],
      ['e.ts', []],
      ['f.ts', ['f.ts']],
      ['g.ts', ['h.ts']],
      ['h.ts', ['g.ts']],
    ]);
    expect(cycles(g)).toEqual([['a.ts', 'b.ts', 'c.ts'], ['g.ts', 'h.ts'], ['f.ts']]);
    expect(
      cycles(
        new Map([
          ['x.ts', ['y.ts']],
          ['y.ts', []],
        ]),
      ),
    ).toEqual([]);
  });
});
