import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The server's handlers get params, query and body typed by the route table's schemas (app.ts
 * `RouteCtx`): a cast or a non-null assertion on them hides a schema that says something else.
 */
const SERVER = fileURLToPath(new URL('../../src/server', import.meta.url));
const CAST = /\b(?:params|query|body|b)\.[A-Za-z_]\w*(?:!(?!=)|\s+as\s)|\b(?:params|query|body)\s+as\s/;

export function handlerCasts(files: { name: string; source: string }[]): string[] {
  return files.flatMap(({ name, source }) =>
    source.split('\n').flatMap((line, i) => (CAST.test(line) ? [`${name}:${i + 1}: ${line.trim()}`] : [])),
  );
}

describe('handlers use the typed route context', () => {
  it('no cast or non-null assertion on params, query or body in src/server/handlers-*.ts', () => {
    const files = readdirSync(SERVER)
      .filter((n) => /^handlers-.*\.ts$/.test(n))
      .map((name) => ({ name, source: readFileSync(join(SERVER, name), 'utf8') }));
    expect(files.length).toBeGreaterThan(4);
    expect(handlerCasts(files)).toEqual([]);
  });

  it('the check sees each form', () => {
    const found = handlerCasts([
      {
        name: 'x.ts',
        source: [
          'const a = query.limit as number;',
          'const b = params.id!;',
          'const c = body as { x: string };',
          'const d = b.text!.trim();',
          'if (params.id !== undefined) ok();',
        ].join('\n'),
      },
    ]);
    expect(found.map((f) => f.split(':')[1])).toEqual(['1', '2', '3', '4']);
  });
});
