import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareVersions, parseVersion } from '../../src/providers/command-output.js';
import { runProgram } from '../../src/os/run-program.js';
import { filterMcpServers } from '../../src/providers/mcp.js';
import { runNpm } from '../../src/providers/registry-acp/install.js';
import { alive, cleanup, script, tempDir } from './helpers.js';

afterEach(cleanup);

describe('runProgram', () => {
  it('returns output and exit codes, and never throws', async () => {
    const ok = await runProgram('/bin/sh', ['-c', 'echo out; echo err >&2']);
    expect(ok).toMatchObject({ ok: true, code: 0, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    const missing = await runProgram('/no/such/cmd', []);
    expect(missing.ok).toBe(false);
    expect(missing.error).toMatch(/^ENOENT/);
  });

  it('kills the whole process group at the time limit', async () => {
    const pidFile = join(tempDir(), 'pid');
    const s = script(join(tempDir(), 'slow'), `sleep 30 & echo $! > ${pidFile}; wait`);
    const r = await runProgram(s, [], { timeoutMs: 200 });
    expect(r).toMatchObject({ ok: false, timedOut: true });
    const child = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => alive(child), { timeout: 30_000, interval: 20 }).toBe(false);
  });

  it('npm runs the same way: the user environment as is, the tail of its output, its whole group killed at the limit', async () => {
    const bin = tempDir();
    const pidFile = join(bin, 'pid');
    // A hung npm that started a helper of its own (npm runs install scripts in children).
    script(
      join(bin, 'npm'),
      `echo "$NPM_CONFIG_REGISTRY"; echo npm ERR! slow >&2; sleep 30 & echo $! > ${pidFile}; wait`,
    );
    const ctx = {
      env: { PATH: `${bin}:/usr/bin:/bin`, NPM_CONFIG_REGISTRY: 'http://127.0.0.1:9/' },
      homeDir: bin,
      platform: process.platform,
    };
    const r = await runNpm(['install', 'x'], { ctx, timeoutMs: 300 });
    expect(r.code).toBeNull();
    expect(r.output).toBe('http://127.0.0.1:9/\nnpm ERR! slow\n');
    const helper = Number(readFileSync(pidFile, 'utf8'));
    await expect.poll(() => alive(helper), { timeout: 5000 }).toBe(false);
    const missing = await runNpm(['view', 'x'], { ctx: { ...ctx, env: { PATH: '/nonexistent' } } });
    expect(missing.code).toBe(-1);
    expect(missing.output).toMatch(/ENOENT/);
  });

  it('parses and compares versions', () => {
    expect(parseVersion('Hermes Agent v0.18.2')).toBe('0.18.2');
    expect(parseVersion('codex-acp 0.16.0-beta.1\n')).toBe('0.16.0-beta.1');
    expect(parseVersion('no version')).toBeUndefined();
    expect(compareVersions('0.33.0', '0.33.0')).toBe(0);
    expect(compareVersions('0.9.1', '0.33.0')).toBe(-1);
    expect(compareVersions('1.0', '0.99.99')).toBe(1);
  });
});

describe('MCP servers an agent may receive', () => {
  const stdio = { name: 'files', command: 'x', args: [], env: [] };
  const http = { type: 'http', name: 'web', url: 'http://x', headers: [] };
  const sse = { type: 'sse', name: 'events', url: 'http://y', headers: [] };
  it('stdio always; http/sse only when advertised', () => {
    const none = filterMcpServers([stdio, http, sse], { mcpHttp: false, mcpSse: false }, 'Hermes Agent');
    expect(none.servers).toEqual([stdio]);
    expect(none.withheld).toEqual([
      { name: 'web', type: 'http', reason: 'Hermes Agent does not accept http MCP servers (only stdio)' },
      { name: 'events', type: 'sse', reason: 'Hermes Agent does not accept sse MCP servers (only stdio)' },
    ]);
    expect(filterMcpServers([stdio, http, sse], { mcpHttp: true, mcpSse: false }).servers).toEqual([stdio, http]);
    expect(filterMcpServers([stdio, http, sse], { mcpHttp: true, mcpSse: true }).withheld).toEqual([]);
  });
});
