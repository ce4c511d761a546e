/** The README's two library examples, and the map from the package's import names to src/. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * `talaria-acp` and its subpaths, pointed at the source each export is built from (package.json
 * `exports`: ./dist/X.js ← src/X.ts). An import the package does not export fails here.
 * test/package/pack.test.ts runs the same examples against the packed, installed package.
 */
export function toSources(code: string): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
    exports: Record<string, { import?: string } | string>;
  };
  return code.replace(/from 'talaria-acp(\/[a-z-]+)?'/g, (_m, sub: string | undefined) => {
    const target = pkg.exports[`.${sub ?? ''}`];
    if (typeof target !== 'object' || !target.import)
      throw new Error(`README imports talaria-acp${sub ?? ''}, which package.json does not export`);
    const src = join(ROOT, target.import.replace(/^\.\/dist\//, 'src/').replace(/\.js$/, '.ts'));
    return `from '${pathToFileURL(src).href}'`;
  });
}

export function readmeExamples(): { client: string; harness: string } {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const client = /## Library[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  const harness = /embed everything[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
  if (!client || !harness) throw new Error('README: the two library examples were not found');
  return { client, harness };
}
