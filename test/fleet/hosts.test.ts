/**
 * Hosts and presence (issue 39 item 2), with real parts: two `talaria serve` processes on loopback
 * sharing one throwaway PostgreSQL (a database per test). Each lists the other's sessions with
 * their host and live status (`GET /api/sessions?fleet=true`), as does `talaria sessions list
 * --fleet`; a graceful stop is offline at once, a kill -9 after the (test-short) lease.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli, startCli } from '../cli/helpers.js';
import { fleetDatabase, fleetSuite, type FleetHost as Host } from './fleet-serve.js';

vi.setConfig({ testTimeout: 120_000 });

let dbs = 0;
const suite = fleetSuite();
const fleet = suite.fleet;

const database = (): string => fleetDatabase(suite.cluster, `hosts${++dbs}`);

// Short heartbeat and lease (the helper's): a kill -9 shows within seconds.
const host = (url: string, name: string, env: Record<string, string> = {}, args: string[] = []): Promise<Host> =>
  fleet.start(url, name, { env, args });

interface Listed {
  id: string;
  host?: { id: string; name: string; online: boolean; self: boolean };
  presence?: string;
}

async function fleetSessions(h: Host): Promise<Listed[]> {
  const r = await fetch(`${h.origin}/api/sessions?fleet=true`, { headers: { authorization: `Bearer ${h.token}` } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { sessions: Listed[] }).sessions;
}

const statusOn = async (h: Host, id: string) => (await fleetSessions(h)).find((s) => s.id === id);

describe('a fleet of two talaria serve hosts on one PostgreSQL', () => {
  it('each lists the other’s sessions with host and live status; sessions list --fleet too; kill -9 → host offline', async () => {
    const url = database();
    // A with the caps face too: the fleet's facts in its dataspace, its feed under SES lockdown.
    const a = await host(url, 'a', {}, ['--caps']);
    // B's demo agent answers slowly enough that A can see the turn running.
    const b = await host(url, 'b', { TALARIA_DEMO_CHUNK_DELAY_MS: '150' });
    const run = startCli(['run', '--agent', 'demo', 'one two three four five six seven eight nine ten'], {
      cwd: b.home,
      env: b.env,
    });
    fleet.track(run);
    let sid: string | undefined;
    await vi.waitFor(
      async () => {
        const s = (await fleetSessions(a)).find((x) => x.presence === 'running');
        expect(s?.host).toMatchObject({ name: b.name, online: true, self: false });
        sid = s!.id;
      },
      { timeout: 20_000, interval: 50 },
    );
    expect((await run.done).code).toBe(0);
    await vi.waitFor(async () => expect((await statusOn(a, sid!))?.presence).toBe('idle'), { timeout: 10_000 });
    // B lists it as its own, live.
    expect(await statusOn(b, sid!)).toMatchObject({ host: { self: true, online: true }, presence: 'idle' });

    const listed = await runCli(['sessions', 'list', '--fleet', '--json'], { cwd: a.home, env: a.env });
    expect(listed.code).toBe(0);
    const f = JSON.parse(listed.stdout) as {
      hosts: { name: string; online: boolean }[];
      sessions: { id: string; host?: { name: string }; status: string }[];
    };
    expect(f.hosts.map((h) => h.name).sort()).toEqual([a.name, b.name].sort());
    expect(f.sessions.find((s) => s.id === sid)).toMatchObject({ host: { name: b.name }, status: 'idle' });
    const human = await runCli(['sessions', 'list', '--fleet'], { cwd: a.home, env: a.env });
    expect(human.stdout).toContain(sid!.slice(0, 8));

    b.serve.child.kill('SIGKILL');
    await b.serve.done;
    await vi.waitFor(
      async () => expect(await statusOn(a, sid!)).toMatchObject({ host: { online: false }, presence: 'offline' }),
      { timeout: 10_000, interval: 100 },
    );
    const after = await runCli(['sessions', 'list', '--fleet'], { cwd: a.home, env: a.env });
    expect(after.stdout).toMatch(/host offline/);
  });

  it('a graceful stop shows the host offline at once', async () => {
    const url = database();
    // A lease far longer than the wait: only the stop's own write can make it offline in time.
    const long = { TALARIA_FLEET_LEASE_MS: '600000' };
    const a = await host(url, 'a', long);
    const b = await host(url, 'b', long);
    const run = await runCli(['run', '--agent', 'demo', 'hello'], { cwd: b.home, env: b.env });
    expect(run.code).toBe(0);
    let sid: string | undefined;
    await vi.waitFor(
      async () => {
        const s = (await fleetSessions(a)).find((x) => x.host?.name === b.name);
        expect(s?.presence).toBe('idle');
        sid = s!.id;
      },
      { timeout: 10_000 },
    );
    b.serve.child.kill('SIGTERM');
    expect((await b.serve.done).code).toBe(0);
    await vi.waitFor(async () => expect((await statusOn(a, sid!))?.presence).toBe('offline'), { timeout: 3_000 });
  });

  it('after a PostgreSQL restart the feed resyncs: A sees what B does next', async () => {
    const url = database();
    const a = await host(url, 'a', { TALARIA_FLEET_LEASE_MS: '600000' });
    const b = await host(url, 'b', { TALARIA_FLEET_LEASE_MS: '600000' });
    await vi.waitFor(async () => expect((await fleetSessions(a)).length).toBe(0), { timeout: 5_000 });
    suite.cluster.stop();
    suite.cluster.start();
    // Whether A's feed is back before B's notification or after (then its resync reloads), A sees it.
    const run = await runCli(['run', '--agent', 'demo', 'after the restart'], { cwd: b.home, env: b.env });
    expect(run.code).toBe(0);
    await vi.waitFor(
      async () => {
        const s = (await fleetSessions(a)).find((x) => x.host?.name === b.name);
        expect(s?.presence).toBe('idle');
      },
      { timeout: 30_000 },
    );
  });
});
