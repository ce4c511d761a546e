import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { toSources } from '../docs/readme-examples.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('README: the caps example', () => {
  it('runs as written (package imports pointed at src/): a pipelined prompt over CapTP ends the turn', () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const code = /### Capabilities \(CapTP\)[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'talaria-readme-caps-'));
    const file = join(dir, 'caps.mts');
    writeFileSync(file, toSources(code!));
    try {
      const out = execFileSync(process.execPath, ['--import', import.meta.resolve('tsx'), file], {
        cwd: dir,
        env: {
          ...process.env,
          TALARIA_HOME: join(dir, 'home'),
          TALARIA_DEMO_HOME: join(dir, 'demo-home'),
          TALARIA_DEMO_CHUNK_DELAY_MS: '0',
        },
        encoding: 'utf8',
        timeout: 90_000,
      });
      expect(out.trim()).toBe('end_turn true');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
