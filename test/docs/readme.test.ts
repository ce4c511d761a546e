import { describe, it, expect } from 'vitest';
import { readFileSync, writeFileSync, mkdtempSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { readmeExamples, toSources } from './readme-examples.js';

/** The README's library examples must run as written (only the package name is pointed at src/). */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('README', () => {
  it('the library example runs as written against the demo agent', () => {
    const code = toSources(readmeExamples().client);
    expect(code).not.toContain("'talaria-acp");
    const dir = mkdtempSync(join(tmpdir(), 'talaria-readme-'));
    const file = join(dir, 'example.mts'); // a user's ESM module
    writeFileSync(file, code);
    try {
      const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
        cwd: dir,
        env: { ...process.env, TALARIA_DEMO_HOME: join(dir, 'demo-home') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(out.trim()).toBe('end_turn true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the harness example runs as written and records the session', () => {
    const dir = mkdtempSync(join(tmpdir(), 'talaria-readme-'));
    const file = join(dir, 'harness.mts');
    writeFileSync(file, toSources(readmeExamples().harness));
    try {
      const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
        cwd: dir,
        env: { ...process.env, TALARIA_HOME: join(dir, 'home'), TALARIA_DEMO_HOME: join(dir, 'demo-home') },
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(out.trim()).toBe('end_turn true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('an import the package does not export is an error, not a silent pass', () => {
    expect(() => toSources("import { x } from 'talaria-acp/nope';")).toThrow(/does not export/);
  });

  it('names the two commands and CI runs the README test command', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
  });
});
