/**
 * `talaria serve` hosts of one fleet for tests: each on a loopback port with the demo agent, a home
 * of its own, the fleet's store and a join token (every host but a fleet's first needs one), and a
 * short heartbeat; the hosts a test started are killed at its end. One road for the fleet's
 * multi-host tests (test/fleet, test/web).
 */
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { hostIdentity } from '../../src/fleet/identity.js';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { demoEnv, startCli, tempDir, type CliRun } from '../cli/helpers.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { joinToken } from './join-helper.js';

export interface FleetHost {
  home: string;
  env: Record<string, string>;
  serve: CliRun;
  /** The link serve printed (origin and token). */
  link: string;
  origin: string;
  token: string;
  /** The host's name and id as serve printed them. */
  name: string;
  id: string;
}

export interface FleetHostOptions {
  /** The identity's name (made before the first start; default: serve's own). */
  name?: string;
  /** More environment (it wins over the defaults: heartbeat 200 ms, lease 1.5 s). */
  env?: Record<string, string>;
  args?: string[];
}

/** A database of its own on the cluster, for one test; its postgres:// URL. */
export function fleetDatabase(cluster: Cluster, name: string): string {
  const admin = openSyncPg(cluster.url);
  try {
    admin.query(`CREATE DATABASE ${name}`);
  } finally {
    admin.close();
  }
  return cluster.url.replace('/postgres?', `/${name}?`);
}

export class FleetHosts {
  private readonly running: CliRun[] = [];

  /** Starts a host on the fleet's store at `url`; resolves once it joined. */
  async start(url: string, label: string, o: FleetHostOptions = {}): Promise<FleetHost> {
    const home = tempDir(`fleet-${label}`);
    if (o.name) hostIdentity(join(home, 'talaria'), { name: o.name });
    const env = demoEnv(home, {
      TALARIA_FLEET_HEARTBEAT_MS: '200',
      TALARIA_FLEET_LEASE_MS: '1500',
      ...o.env,
      TALARIA_STORE: url,
      TALARIA_FLEET_JOIN: joinToken(url),
    });
    const serve = startCli(['serve', '--port', '0', ...(o.args ?? [])], { cwd: home, env });
    this.running.push(serve);
    await serve.until((out) => /fleet: host /.test(out));
    const m = /((http:\/\/127\.0\.0\.1:\d+)\/#token=(\S+))/.exec(serve.stdout())!;
    const f = /fleet: host (.+) \((h_[0-9a-f-]+)\)/.exec(serve.stdout())!;
    return { home, env, serve, link: m[1]!, origin: m[2]!, token: m[3]!, name: f[1]!, id: f[2]! };
  }

  /** Another process of the test's (a `talaria run`), stopped with the hosts. */
  track(r: CliRun): void {
    this.running.push(r);
  }

  /** Kills what still runs (kill -9) and waits for it. */
  async stop(): Promise<void> {
    for (const r of this.running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(this.running.map((r) => r.done));
  }
}

export interface FleetSuite {
  /** The file's throwaway cluster (set before its tests run). */
  readonly cluster: Cluster;
  readonly fleet: FleetHosts;
}

/**
 * A test file's fleet: one throwaway cluster and the hosts it starts, stopped after its tests (hosts
 * first, then the cluster). `extra` runs around them (test/web: a browser).
 */
export function fleetSuite(extra: { setup?: () => Promise<void>; teardown?: () => Promise<void> } = {}): FleetSuite {
  const fleet = new FleetHosts();
  let cluster: Cluster | undefined;
  beforeAll(async () => {
    cluster = startCluster();
    await extra.setup?.();
  }, 240_000);
  afterAll(async () => {
    try {
      await extra.teardown?.();
      await fleet.stop();
    } finally {
      cluster?.destroy();
    }
  });
  return {
    fleet,
    get cluster() {
      return cluster!;
    },
  };
}
