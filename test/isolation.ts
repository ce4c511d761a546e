/**
 * Which test files run in a process of their own (vitest.config.ts). Most files share a worker
 * process with the files before them: a fresh process per file cost ~1 s of module loading each
 * (366 files). A file whose imports reach an `@endo/*` package cannot share: SES's lockdown
 * freezes the process's intrinsics (Error.stackTraceLimit among them) and later files in that
 * process fail. The walk follows relative imports (static and dynamic, not type-only: those are
 * erased) from each test file, read by the import scanner the architecture tests use.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { importsOf } from './arch/imports.js';
const SHARED_STATE = /^(?:@endo\/|ses$)/;

function resolveTs(from: string, spec: string): string | undefined {
  const base = join(dirname(from), spec);
  for (const f of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, base]) {
    if (f.endsWith('.ts') || f.endsWith('.tsx')) if (existsSync(f)) return f;
  }
  return undefined;
}

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (e.name !== 'fixtures' && !e.name.startsWith('.')) out.push(...testFiles(p));
    } else if (e.name.endsWith('.test.ts')) out.push(p);
  }
  return out;
}

/** Test files (relative to `root`) whose imports reach an `@endo/*` package. */
export function lockdownTests(root: string): string[] {
  const reaches = new Map<string, boolean>();
  const visit = (file: string): boolean => {
    const known = reaches.get(file);
    if (known !== undefined) return known;
    reaches.set(file, false); // a cycle adds nothing
    let hit = false;
    for (const { spec, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
      if (typeOnly) continue;
      if (SHARED_STATE.test(spec)) hit = true;
      else if (spec.startsWith('.')) {
        const f = resolveTs(file, spec);
        if (f && visit(f)) hit = true;
      }
      if (hit) break;
    }
    reaches.set(file, hit);
    return hit;
  };
  return testFiles(join(root, 'test'))
    .filter(visit)
    .map((f) => relative(root, f));
}
