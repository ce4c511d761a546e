/**
 * What every `talaria` command pays at start-up: loading the CLI's modules. The packages of one
 * command (the server's, the fleet's PostgreSQL, capabilities, the probe's checker, the agent
 * installer's archive readers) are imported when that command runs, not by all of them.
 */
import { describe, it, expect } from 'vitest';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const HOOK = new URL('./import-log-hook.mjs', import.meta.url).href;
const CLI = fileURLToPath(new URL('../../src/cli/cli.ts', import.meta.url));
const ON_DEMAND = [
  'hono',
  '@hono/node-server',
  'ws',
  'pg',
  '@endo/',
  'ajv',
  '@modelcontextprotocol/sdk',
  'adm-zip',
  'tar',
  'seek-bzip',
];

describe('talaria start-up', () => {
  it("loads no command's own packages until that command runs", async () => {
    const register = `import { register } from 'node:module'; register(${JSON.stringify(HOOK)});`;
    const { stderr } = await promisify(execFile)(
      process.execPath,
      [
        '--import',
        `data:text/javascript,${encodeURIComponent(register)}`,
        '--import',
        import.meta.resolve('tsx'),
        '--input-type=module',
        '-e',
        `await import(${JSON.stringify(CLI)})`,
      ],
      { timeout: 60_000 },
    );
    const packages = new Set(
      stderr
        .split('\n')
        .filter((l) => l.startsWith('PACKAGE '))
        .map((l) => l.slice('PACKAGE '.length)),
    );
    expect(packages.size).toBeGreaterThan(3); // the hook sees the CLI's packages (the SDK, SQLite…)
    expect(packages).toContain('@agentclientprotocol/sdk');
    const loaded = [...packages].filter((p) =>
      ON_DEMAND.some((d) => p === d || p.startsWith(d.endsWith('/') ? d : d + '/')),
    );
    expect(loaded).toEqual([]);
  }, 90_000);
});
