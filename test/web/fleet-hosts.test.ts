/**
 * A fleet in the web UI (issue 39 item 2), in Chromium: two `talaria serve` hosts on one throwaway
 * PostgreSQL; A's session list shows B's session with B's name and its live status, and "host
 * offline" once B is killed and its (test-short) lease runs out. Screenshotted.
 */
import { describe, expect, it } from 'vitest';
import { fleetDatabase } from '../fleet/fleet-serve.js';
import { webFleetSuite } from './fleet-suite.js';
import { runCli } from '../cli/helpers.js';
import { shot } from './browser.js';
import { WEB_ROOT } from './build.js';

const suite = webFleetSuite();
const fleet = suite.fleet;

// The host's name people see: its identity, made before its first start.
const serve = (url: string, name: string) =>
  fleet.start(url, `web-${name}`, { name, env: { TALARIA_WEB_ROOT: WEB_ROOT } });

describe('web: a fleet’s sessions in the session list', { timeout: 180_000 }, () => {
  it('shows the other host’s session with its host and status, then "host offline"', async () => {
    const url = fleetDatabase(suite.cluster, 'webfleet');
    const a = await serve(url, 'box-a');
    const b = await serve(url, 'box-b');
    expect((await runCli(['run', '--agent', 'demo', 'hello from box-b'], { cwd: b.home, env: b.env })).code).toBe(0);
    const page = await suite.browser.newPage({ viewport: { width: 1100, height: 700 } });
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
