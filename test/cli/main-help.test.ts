/**
 * `talaria --help` starts like a native tool: the entry answers it without loading the command
 * modules, the harness, the store or the SDK. Checked by the modules the process loads (a
 * module-loader hook lists them), never by timing.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { MAIN_HELP } from '../../src/cli/help.js';

const run = promisify(execFile);
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'talaria-main-help-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the entry with a hook that appends every loaded module URL to a file; returns both. */
async function traced(args: string[]): Promise<{ stdout: string; loaded: string[] }> {
  const log = join(dir, `loaded-${args.join('_')}.txt`);
  const hooks = join(dir, 'trace-hooks.mjs');
  writeFileSync(
    hooks,
    `import { appendFileSync } from 'node:fs';\nexport async function load(url, context, next) { appendFileSync(${JSON.stringify(log)}, url + '\\n'); return next(url, context); }\n`,
  );
  const register = `data:text/javascript,import{register}from'node:module';register(${encodeURIComponent(JSON.stringify(pathToFileURL(hooks).href))})`;
  const r = await run(process.execPath, ['--import', import.meta.resolve('tsx'), '--import', register, MAIN, ...args], {
    cwd: dir,
    env: { ...process.env, TALARIA_HOME: join(dir, 'home'), NO_COLOR: '1' },
  });
  return { stdout: r.stdout, loaded: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe('talaria --help and --version', () => {
  it('prints the main help without loading the commands, the harness or the SDK', async () => {
    const { stdout, loaded } = await traced(['--help']);
    expect(stdout).toBe(`${MAIN_HELP}\n`);
    expect(loaded.some((u) => u.endsWith('/src/cli/help.ts'))).toBe(true);
    const heavy = loaded.filter((u) =>
      /\/src\/cli\/cli\.ts$|\/src\/(harness|store|session|host)\/|@agentclientprotocol|better-sqlite3/.test(u),
    );
    expect(heavy).toEqual([]);
  });

  it('prints the version the same way, without the commands either', async () => {
    const { stdout, loaded } = await traced(['--version']);
    expect(stdout).toBe(
      `talaria ${(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version}\n`,
    );
    expect(loaded.filter((u) => /\/src\/cli\/cli\.ts$|\/src\/(harness|store|session|host)\//.test(u))).toEqual([]);
  });

  it('anything else goes through the full CLI (the trace sees it: the checks above can fail)', async () => {
    const { stdout, loaded } = await traced(['--version', '--help']);
    expect(stdout).toMatch(/^talaria \d+\.\d+\.\d+/);
    expect(loaded.some((u) => u.endsWith('/src/cli/cli.ts'))).toBe(true);
  });
});
