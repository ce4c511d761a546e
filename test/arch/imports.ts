/**
 * What a TypeScript source imports, by regex (the sources follow Prettier's layout): static
 * imports and re-exports with whether they are type-only, and dynamic `import('…')`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface Imp {
  spec: string;
  typeOnly: boolean;
  /** `import('…')`: loaded when that code runs, not with the module. */
  dynamic: boolean;
}

export function importsOf(source: string): Imp[] {
  const out: Imp[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(source));) out.push({ spec: m[3]!, typeOnly: Boolean(m[2]), dynamic: false });
  const dyn = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m; (m = dyn.exec(source));) out.push({ spec: m[1]!, typeOnly: false, dynamic: true });
  return out;
}

const SRC = fileURLToPath(new URL('../../src', import.meta.url));

/**
 * The run-time import graph of `entry` (type-only imports are erased): its files (relative to src/)
 * and packages. Dynamic imports are followed unless `followDynamic` is false (then the graph is
 * what loading `entry` loads at once).
 */
export function runtimeGraph(
  entry: string,
  o: { followDynamic?: boolean } = {},
): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const todo = [entry];
  while (todo.length > 0) {
    const file = todo.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    for (const imp of importsOf(readFileSync(file, 'utf8'))) {
      if (imp.typeOnly || (imp.dynamic && o.followDynamic === false)) continue;
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
