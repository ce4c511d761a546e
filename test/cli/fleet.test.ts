/**
 * `talaria fleet token|hosts|revoke` end to end (docs/fleet.md §5), on a throwaway PostgreSQL with
 * real `talaria serve` hosts: the first host joins freely; a second is refused without a token
 * (saying how to get one) and joins with `--join`; `fleet hosts` lists both; `fleet revoke` makes
 * the revoked serve leave and stop, and the other host shows its session offline at once (the
 * lease is 10 minutes); it cannot come back without a new token. Plain HTTP off loopback: refused.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { hostIdentity } from '../../src/fleet/identity.js';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { demoEnv, runCli, startCli, tempDir, type CliRun } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

let cluster: Cluster;
let url: string;
const running: CliRun[] = [];
beforeAll(() => {
  cluster = startCluster();
  const admin = openSyncPg(cluster.url);
  admin.query('CREATE DATABASE clifleet');
  admin.close();
  url = cluster.url.replace('/postgres?', '/clifleet?');
});
afterAll(async () => {
  try {
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(running.map((r) => r.done));
  } finally {
    cluster?.destroy();
  }
});

/** A host's home with its name; a lease far longer than the test (only a revocation is "at once"). */
function home(name: string) {
  const dir = tempDir(`cli-fleet-${name}`);
  const id = hostIdentity(join(dir, 'talaria'), { name });
  const env = demoEnv(dir, { TALARIA_FLEET_HEARTBEAT_MS: '200', TALARIA_FLEET_LEASE_MS: '600000' });
  return { dir, id: id.id, env };
}

function serve(h: ReturnType<typeof home>, args: string[] = []): CliRun {
  const s = startCli(['serve', '--port', '0', '--store', url, ...args], { cwd: h.dir, env: h.env });
  running.push(s);
  return s;
}

const fleet = (h: ReturnType<typeof home>, args: string[]) =>
  runCli(['fleet', ...args, '--store', url], { cwd: h.dir, env: h.env });

describe('talaria fleet', () => {
  it('token → join, hosts, revoke → the revoked serve leaves and the other sees it at once', async () => {
    const a = home('box-a');
    const b = home('box-b');
    // Not a fleet's store: said so.
    const sqlite = await runCli(['fleet', 'token'], { cwd: a.dir, env: a.env });
    expect(sqlite.code).toBe(2);
    expect(sqlite.stderr).toMatch(/postgres:\/\/ store/);

    const serveA = serve(a);
    await serveA.until((out) => /fleet: host box-a/.test(out));
    const origin = /(http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+)/.exec(serveA.stdout())!;

    // B without a token: refused, saying how to get one.
    const refused = await runCli(['serve', '--port', '0', '--store', url], { cwd: b.dir, env: b.env });
    expect(refused.code).toBe(6);
    expect(refused.stderr).toMatch(/joining this fleet needs a join token; .*talaria fleet token.*--join TOKEN/);
    expect(refused.stderr).not.toMatch(/internal error/);

    const minted = await fleet(a, ['token', '--expires', '2h']);
    expect(minted.code).toBe(0);
    const token = minted.stdout.trim();
    expect(token).toMatch(/^tfj_[\w-]{40,}$/);
    expect(minted.stderr).toMatch(/good until .* for any number of hosts \(shown once\)/);
    expect(minted.stderr).not.toContain(token);

    const serveB = serve(b, ['--join', token]);
    await serveB.until((out) => /fleet: host box-b/.test(out));
    expect((await runCli(['run', '--agent', 'demo', 'hello from box-b'], { cwd: b.dir, env: b.env })).code).toBe(0);

    const listed = await fleet(a, ['hosts', '--json']);
    const hosts = (
      JSON.parse(listed.stdout) as {
        hosts: { id: string; name: string; online: boolean; revoked: boolean; url: string }[];
      }
    ).hosts;
    expect(hosts.map((h) => [h.name, h.online, h.revoked])).toEqual([
      ['box-a', true, false],
      ['box-b', true, false],
    ]);
    expect(hosts[0]!.url).toBe(origin[1]);
    expect((await fleet(a, ['hosts'])).stdout).toMatch(
      new RegExp(`^${b.id}  box-b  online  http://127\\.0\\.0\\.1:\\d+\\n`, 'm'),
    );

    // A sees B's session, live on B.
    const sessionsOnA = async () => {
      const r = await fetch(`${origin[1]}/api/sessions?fleet=true`, {
        headers: { authorization: `Bearer ${origin[2]}` },
      });
      return ((await r.json()) as { sessions: { host?: { name: string; online: boolean }; presence?: string }[] })
        .sessions;
    };
    await vi.waitFor(
      async () => expect((await sessionsOnA()).find((s) => s.host?.name === 'box-b')?.presence).toBe('idle'),
      {
        timeout: 10_000,
      },
    );

    expect((await fleet(a, ['revoke', 'nobody'])).code).toBe(2);
    const revoked = await fleet(a, ['revoke', 'box-b']);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toBe(`revoked ${b.id} (box-b)\n`);
    // B leaves and stops, saying why; A shows B's session offline at once (its lease has minutes to run).
    const endB = await serveB.done;
    expect(endB.code).toBe(6);
    expect(endB.stderr).toMatch(/was revoked from the fleet/);
    await vi.waitFor(
      async () =>
        expect((await sessionsOnA()).find((s) => s.host?.name === 'box-b')).toMatchObject({
          host: { online: false },
          presence: 'offline',
        }),
      { timeout: 5_000 },
    );
    const after = JSON.parse((await fleet(a, ['hosts', '--json'])).stdout) as {
      hosts: { name: string; online: boolean; revoked: boolean }[];
    };
    expect(after.hosts.find((h) => h.name === 'box-b')).toMatchObject({ online: false, revoked: true });
    expect((await fleet(a, ['revoke', b.id])).stdout).toMatch(/already revoked/);

    // It cannot come back without a new token, not even with the old one.
    const again = await runCli(['serve', '--port', '0', '--store', url, '--join', token], { cwd: b.dir, env: b.env });
    expect(again.code).toBe(6);
    expect(again.stderr).toMatch(/was revoked after this join token was made/);
    const fresh = (await fleet(a, ['token'])).stdout.trim();
    const back = serve(b, ['--join', fresh]);
    await back.until((out) => /fleet: host box-b/.test(out));
  });

  it('plain HTTP off loopback: a fleet member refuses to start', async () => {
    const c = home('box-c');
    const r = await runCli(['serve', '--port', '0', '--store', url, '--host', '0.0.0.0', '--insecure'], {
      cwd: c.dir,
      env: c.env,
    });
    expect(r.code).toBe(6);
    expect(r.stderr).toMatch(/a fleet member off loopback is reached over TLS only, not http:\/\/0\.0\.0\.0/);
  });
});
