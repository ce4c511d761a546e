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

  it('the probe-through-the-proxy command works as written in a checkout (demo agent for hermes)', () => {
    const line = /`npx talaria probe --agent-cmd "(node \$PWD\/bin\/talaria\.js acp --agent) hermes"`/.exec(
      readFileSync(join(ROOT, 'README.md'), 'utf8'),
    )?.[1];
    expect(line).toBeDefined();
    // What the shell makes of it in the checkout ($PWD expanded), with the demo agent for Hermes.
    const args = ['probe', '--agent-cmd', `${line!.replace('$PWD', ROOT.replace(/\/$/, ''))} demo`, '--json'];
    const home = mkdtempSync(join(tmpdir(), 'talaria-readme-probe-'));
    try {
      const out = execFileSync(process.execPath, [join(ROOT, 'bin/talaria.js'), ...args], {
        cwd: ROOT,
        // HOME too: the `talaria acp` the probe starts gets no TALARIA_HOME from it (an agent's
        // environment is an allow-list), so it records the probe's sessions in $HOME/.talaria.
        env: { ...process.env, TALARIA_HOME: home, HOME: home },
        encoding: 'utf8',
        timeout: 120_000,
      });
      const report = JSON.parse(out) as { checks: { id: string; status: string }[] };
      expect(report.checks.find((c) => c.id === 'initialize')?.status).toBe('works');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  }, 150_000);

  it('names the two commands and CI runs the README test command', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('npm start');
    expect(readme).toContain('npm test');
    expect(readFileSync(join(ROOT, '.ci/run'), 'utf8')).toMatch(/^npm test$/m);
  });
});
