import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { CapsHost, connectCaps, E, startCapsServer, type CapsLauncher } from '../../src/caps/index.js';
import { openStore } from '../../src/store/index.js';
import { RefStore } from '../../src/caps/refs.js';
import { demoEnv, runCli, tempDir } from './helpers.js';
import { makeHarness, place } from '../harness/helpers.js';

vi.setConfig({ testTimeout: 90_000 });

describe('talaria caps mint|list|revoke', () => {
  it('mints a launcher URI (printed once, never listed), lists it, and revoke cuts it for a live caps host', async () => {
    const dir = tempDir('caps');
    const env = demoEnv(dir);
    const home = env.TALARIA_HOME!;
    const minted = await runCli(['caps', 'mint', '--agent', 'demo', '--expires', '2h', '--label', 'for the phone'], {
      cwd: dir,
      env,
    });
    expect(minted.code, minted.stderr).toBe(0);
    const uri = minted.stdout.trim();
    expect(uri).toMatch(/^ocapn:\/\/[0-9a-f]{32}\.talaria\/s\/[A-Za-z0-9_-]{43}$/);
    expect(minted.stderr).toContain('bearer secret');
    const secret = uri.split('/s/')[1]!;
    const listed = await runCli(['caps', 'list', '--json'], { cwd: dir, env });
    expect(listed.code).toBe(0);
    expect(listed.stdout).not.toContain(secret);
    const rows = (JSON.parse(listed.stdout) as { refs: { id: string; facet: string; target: string; label: string }[] })
      .refs;
    expect(rows).toEqual([
      expect.objectContaining({
        facet: 'launcher',
        label: 'for the phone',
        target: JSON.stringify({ workspace: dir, provider: 'demo' }),
      }),
    ]);

    // A caps host on that home honours the CLI's reference, and its revocation.
    const p = place();
    const h = makeHarness({ ...p, home }, { warm: false });
    const host = new CapsHost({ harness: h });
    const server = await startCapsServer(host);
    const c = await connectCaps<CapsLauncher>(server.url, uri);
    expect(await E(c.root).info()).toEqual({ workspace: dir, provider: 'demo' });
    const revoked = await runCli(['caps', 'revoke', uri], { cwd: dir, env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toContain('Revoked 1 reference');
    // Another process revoked it: the live object's next call and the next fetch read the store and refuse.
    await expect(E(c.root).info()).rejects.toThrow(/ref_revoked/);
    await expect(c.fetch(uri)).rejects.toThrow(/ref_revoked/);
    await c.close();
    await server.close();
    await host.close();
    const all = await runCli(['caps', 'list', '--all'], { cwd: dir, env });
    expect(all.stdout).toMatch(/revoked\s+launcher/);
  });

  it('bad usage is refused with a clear message and exit 2; nothing is minted', async () => {
    const dir = tempDir('caps');
    const env = demoEnv(dir);
    const cases: [string[], RegExp][] = [
      [['caps', 'mint', '--expires', 'soon'], /--expires wants a duration/],
      [['caps', 'mint', '--session', 'nope'], /no stored session 'nope'/],
      [['caps', 'mint', '--facet', 'boss', '--session', 'x'], /facet/],
      [['caps', 'revoke'], /give one reference id/],
      [['caps', 'revoke', 'ocapn://x.talaria/s/abc'], /no reference has that URI/],
      [['caps', 'fly'], /unknown command 'fly'/],
    ];
    for (const [args, re] of cases) {
      const r = await runCli(args, { cwd: dir, env });
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr).toMatch(re);
    }
    const store = openStore({ home: env.TALARIA_HOME! });
    expect(new RefStore(store).list({ includeRevoked: true })).toEqual([]);
    store.close();
  });
});
