import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importsOf } from '../arch/imports.js';

/** The contract and the typed client run in the browser (web/ imports them): no node:*, no server code. */
const SERVER = fileURLToPath(new URL('../../src/server', import.meta.url));
const ALLOWED = [/^zod$/, /^\.\.\/contract\//, /^\.\/[a-z-]+\.js$/, /^\.\.\/\.\.\/session\/events\.js$/];

describe('browser-safe contract and client', () => {
  for (const dir of ['contract', 'client']) {
    it(`src/server/${dir} imports only zod, the contract and the event registry`, () => {
      const files = readdirSync(join(SERVER, dir)).filter((f) => f.endsWith('.ts'));
      expect(files.length).toBeGreaterThan(0);
      const bad = files.flatMap((f) =>
        importsOf(readFileSync(join(SERVER, dir, f), 'utf8'))
          .map((i) => i.spec)
          .filter((spec) => !ALLOWED.some((r) => r.test(spec)))
          .map((spec) => `${dir}/${f}: ${spec}`),
      );
      expect(bad).toEqual([]);
    });
  }
});
