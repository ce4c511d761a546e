/**
 * A fleet in the web UI (issue 39 item 2), in Chromium: two `talaria serve` hosts on one throwaway
 * PostgreSQL; A's session list shows B's session with B's name and its live status, and "host
 * offline" once B is killed and its (test-short) lease runs out. Screenshotted.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hostIdentity } from '../../src/fleet/identity.js';
import { openSyncPg } from '../../src/store/pg/sync-client.js';
import { startCluster, type Cluster } from '../store/pg/cluster.js';
import { demoEnv, runCli, startCli, tempDir, type CliRun } from '../cli/helpers.js';
import { launch, shot } from './browser.js';
import { ensureWebBuilt, WEB_ROOT } from './build.js';
import { joinToken } from '../fleet/join-helper.js';

let cluster: Cluster;
let browser: Browser;
const running: CliRun[] = [];
beforeAll(async () => {
  await ensureWebBuilt();
  cluster = startCluster();
  browser = await launch();
}, 240_000);
afterAll(async () => {
  try {
    await browser?.close();
    for (const r of running) if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGKILL');
    await Promise.all(running.map((r) => r.done));
  } finally {
    cluster?.destroy();
  }
});

async function serve(url: string, name: string) {
  const home = tempDir(`web-fleet-${name}`);
  // The host's name people see: its identity, made before its first start.
  hostIdentity(join(home, 'talaria'), { name });
  const env = demoEnv(home, {
    TALARIA_STORE: url,
    TALARIA_FLEET_JOIN: joinToken(url),
    TALARIA_WEB_ROOT: WEB_ROOT,
    TALARIA_FLEET_HEARTBEAT_MS: '200',
    TALARIA_FLEET_LEASE_MS: '1500',
  });
  const s = startCli(['serve', '--port', '0'], { cwd: home, env });
  running.push(s);
  await s.until((out) => /fleet: host /.test(out));
  const link = /(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(s.stdout())![1]!;
  return { home, env, serve: s, link };
}

describe('web: a fleet’s sessions in the session list', { timeout: 180_000 }, () => {
  it('shows the other host’s session with its host and status, then "host offline"', async () => {
    const admin = openSyncPg(cluster.url);
    admin.query('CREATE DATABASE webfleet');
    admin.close();
    const url = cluster.url.replace('/postgres?', '/webfleet?');
    const a = await serve(url, 'box-a');
    const b = await serve(url, 'box-b');
    expect((await runCli(['run', '--agent', 'demo', 'hello from box-b'], { cwd: b.home, env: b.env })).code).toBe(0);
    const page = await browser.newPage({ viewport: { width: 1100, height: 700 } });
    await page.goto(a.link);
    const pill = page.locator('.pill-host');
    await pill.first().waitFor({ timeout: 20_000 });
    await expect.poll(() => pill.first().textContent(), { timeout: 10_000 }).toMatch(/box-b · idle/);
    await shot(page, 'fleet-host-pill');
    b.serve.child.kill('SIGKILL');
    await b.serve.done;
    // The lease runs out with no write: A's view notices, its /ws says fleet.updated, the list reloads.
    await expect.poll(() => pill.first().textContent(), { timeout: 15_000 }).toMatch(/box-b · host offline/);
    await shot(page, 'fleet-host-offline');
    await page.close();
  });
});
