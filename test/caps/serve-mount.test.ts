import '../../src/caps/lockdown.js';
import { describe, it, expect, vi } from 'vitest';
import { connectCaps, E, type CapsLauncher } from '../../src/caps/index.js';
import { demoEnv, runCli, startCli, tempDir } from '../cli/helpers.js';

vi.setConfig({ testTimeout: 120_000 });

describe('talaria serve --caps', () => {
  it('serves the caps face at /captp behind the server token: a CLI-minted launcher prompts the demo agent end to end', async () => {
    const home = tempDir('serve-caps');
    const env = demoEnv(home);
    const run = startCli(['serve', '--caps'], { cwd: home, env });
    await run.until((out) => /caps: ws:\/\/\S+\/captp/.test(out));
    const token = run.stdout().match(/#token=(\S+)/)![1]!;
    const url = run.stdout().match(/caps: (ws:\/\/\S+\/captp)/)![1]!;
    const minted = await runCli(['caps', 'mint', '--agent', 'demo'], { cwd: home, env });
    expect(minted.code, minted.stderr).toBe(0);
    const ref = minted.stdout.trim();
    // Without the server token the upgrade is refused before any CapTP.
    await expect(connectCaps(url, ref)).rejects.toThrow(/401/);
    const c = await connectCaps<CapsLauncher>(url, ref, { token });
    const r = await E(E(E(c.root).newSession()).prompt('hello there')).result();
    expect(r.stopReason).toBe('end_turn');
    // Errors sent to the peer (a guard refusal, an unknown reference) reach it, and not serve's stdout.
    await expect(E(c.root).newSession({ cwd: '/' } as never)).rejects.toThrow(/cwd|Must/);
    await expect(E(c.bootstrap).fetch('ocapn://nope.talaria/s/forged')).rejects.toThrow(/ref_unknown/);
    await c.close();
    run.child.kill('SIGTERM');
    const end = await run.done;
    expect([end.code, end.signal]).toEqual([0, null]);
    expect(end.stderr).not.toMatch(/error|Temporary logging/);
    // stdout: serve's own lines only (where, the URL, the caps URL, the agent).
    const lines = end.stdout.trim().split('\n');
    expect(
      lines.filter((l) => !/^(Talaria is serving |  http:\/\/\S+#token=|  caps: ws:\/\/\S+\/captp |  agent: )/.test(l)),
    ).toEqual([]);
    expect(lines.length).toBeLessThanOrEqual(4);
  });
});
