import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_PORT, SERVE_LINK_FILE } from '../../src/cli/commands/serve-link.js';
import { demoEnv, freePort, runCli, startCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

/** One `talaria serve` start on `home`: its printed link, then a graceful stop. */
async function serveOnce(
  home: string,
  args: string[] = [],
): Promise<{ origin: string; port: number; token: string; stdout: string }> {
  const run = startCli(['serve', ...args], { cwd: home, env: demoEnv(home) });
  await run.until((out) => /#token=\S+/.test(out));
  const m = /(http:\/\/127\.0\.0\.1:(\d+))\/#token=(\S+)/.exec(run.stdout())!;
  const link = { origin: m[1]!, port: Number(m[2]), token: m[3]! };
  // The printed token is accepted by the server that printed it.
  expect((await fetch(`${link.origin}/api/me`, { headers: { authorization: `Bearer ${link.token}` } })).status).toBe(
    200,
  );
  run.child.kill('SIGTERM');
  const done = await run.done;
  expect(done.code).toBe(0);
  return { ...link, stdout: done.stdout };
}

/** Issue 37: a restart keeps the link (port and token), so open tabs and bookmarks keep working. */
describe('talaria serve: one lasting link across restarts', () => {
  it('two starts on one home print the same port and token; the token is kept 0600; --port 0 is still random', async () => {
    const home = tempDir('serve-link');
    const talaria = join(home, 'talaria');
    mkdirSync(talaria, { recursive: true });
    // As if an earlier start had used this port (a port of the test's own: others may use the default).
    const port = await freePort();
    writeFileSync(join(talaria, SERVE_LINK_FILE), JSON.stringify({ port }));
    const first = await serveOnce(home);
    const second = await serveOnce(home);
    expect(first.port).toBe(port);
    expect(second.port).toBe(port);
    expect(second.token).toBe(first.token);
    expect(statSync(join(talaria, SERVE_LINK_FILE)).mode & 0o777).toBe(0o600);
    // Listed like any stored token, so it can be revoked.
    expect((await runCli(['serve', 'tokens', 'list'], { cwd: home, env: demoEnv(home) })).stdout).toMatch(
      / controller .* serve\n/,
    );
    // --port 0: a random port, as before; the token still lasts.
    const random = await serveOnce(home, ['--port', '0']);
    expect(random.token).toBe(first.token);
  });

  it('a fresh home starts on the default port or the next free one; a taken port moves to the next free one', async () => {
    const fresh = tempDir('serve-link');
    const a = await serveOnce(fresh);
    expect(a.port).toBeGreaterThanOrEqual(DEFAULT_PORT);
    expect(a.port).toBeLessThan(DEFAULT_PORT + 20);

    const home = tempDir('serve-link');
    mkdirSync(join(home, 'talaria'), { recursive: true });
    const port = await freePort();
    writeFileSync(join(home, 'talaria', SERVE_LINK_FILE), JSON.stringify({ port }));
    const squatter: Server = createServer();
    await new Promise<void>((r) => squatter.listen(port, '127.0.0.1', r));
    try {
      const moved = await serveOnce(home);
      expect(moved.port).toBeGreaterThan(port);
      expect(moved.port).toBeLessThan(port + 20);
    } finally {
      await new Promise((r) => squatter.close(r));
    }
  });

  it('--new-token replaces the token (the old one is refused); a revoked token is replaced at the next start', async () => {
    const home = tempDir('serve-link');
    const first = await serveOnce(home, ['--port', '0']);
    const rotated = await serveOnce(home, ['--port', '0', '--new-token']);
    expect(rotated.token).not.toBe(first.token);
    expect(rotated.stdout).toContain('a new token');
    const again = startCli(['serve', '--port', '0'], { cwd: home, env: demoEnv(home) });
    await again.until((out) => /#token=\S+/.test(out));
    const m = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(again.stdout())!;
    expect(m[2]).toBe(rotated.token);
    expect((await fetch(`${m[1]}/api/me`, { headers: { authorization: `Bearer ${first.token}` } })).status).toBe(401);
    again.child.kill('SIGTERM');
    expect((await again.done).code).toBe(0);

    // `tokens revoke` on the serve token: the next start makes a new one.
    const listed = (await runCli(['serve', 'tokens', 'list'], { cwd: home, env: demoEnv(home) })).stdout;
    const id = /^(\S+) +controller .* serve$/m.exec(listed)![1]!;
    expect((await runCli(['serve', 'tokens', 'revoke', id], { cwd: home, env: demoEnv(home) })).stdout).toContain(
      `revoked ${id}`,
    );
    const after = await serveOnce(home, ['--port', '0']);
    expect(after.token).not.toBe(rotated.token);
  });
});
