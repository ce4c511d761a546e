/**
 * Control goes to the owner, in the web UI (issue 39 item 3): a session live on host B, opened in
 * host A's web UI in Chromium; a prompt typed on A runs on B (B's lease, B's log) and its streamed
 * reply shows on A. Screenshotted at 1440 and 390 px, axe-clean.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { fleetDatabase } from '../fleet/fleet-serve.js';
import { webFleetSuite } from './fleet-suite.js';
import { axeViolations, goHash } from './axe.js';
import { PHONE, shot } from './browser.js';
import { WEB_ROOT } from './build.js';
import { send } from './helpers.js';

const suite = webFleetSuite();
const fleet = suite.fleet;

async function serve(url: string, name: string) {
  const h = await fleet.start(url, `web-fwd-${name}`, {
    name,
    env: { TALARIA_WEB_ROOT: WEB_ROOT, TALARIA_FLEET_LEASE_MS: '3000', TALARIA_DEMO_CHUNK_DELAY_MS: '5' },
  });
  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${h.origin}${path}`, {
      method,
      headers: { authorization: `Bearer ${h.token}`, 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return (await r.json()) as any;
  };
  return { home: h.home, link: h.link, api };
}

const reply = (page: Page) => page.locator('.msg.agent').last();

describe('web: a session on host B driven from host A', { timeout: 120_000 }, () => {
  it('a prompt typed on A runs on B and its reply streams into A’s page; 1440 and 390 px, axe-clean', async () => {
    const url = fleetDatabase(suite.cluster, 'webfwd');
    const [a, b] = await Promise.all([serve(url, 'box-a'), serve(url, 'box-b')]);
    const { workspace } = await b.api('POST', '/api/workspaces', { path: b.home });
    const { snapshot } = await b.api('POST', `/api/workspaces/${workspace.id}/sessions`, { provider: 'demo' });
    const sid = snapshot.session.id as string;

    const page = await suite.browser.newPage({ viewport: { width: 1440, height: 900 } });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(a.link);
    await goHash(page, `#/s/${encodeURIComponent(sid)}`);
    await page.getByLabel('Message to the agent').waitFor({ timeout: 20_000 });
    // The header names the host that runs it (the list's pill, one component).
    await expect
      .poll(() => page.locator('.session-header .pill-host').textContent(), { timeout: 10_000 })
      .toMatch(/^box-b/);
    await send(page, 'hello from box-a');
    await expect.poll(() => reply(page).textContent(), { timeout: 30_000 }).toMatch(/\S/);
    // The turn ran on B: B's own thread has the prompt typed on A.
    await expect
      .poll(async () => JSON.stringify((await b.api('GET', `/api/sessions/${sid}`)).snapshot.thread.entries), {
        timeout: 10_000,
      })
      .toContain('hello from box-a');
    // The turn ends on B; A's page shows it ended (no Stop button) with the whole reply.
    await page.getByRole('button', { name: /^Stop/ }).waitFor({ state: 'detached', timeout: 30_000 });
    const onB = JSON.stringify((await b.api('GET', `/api/sessions/${sid}`)).snapshot.thread.entries);
    const seen = (await reply(page).textContent()) ?? '';
    expect(seen).toContain('You said: "hello from box-a"');
    expect(onB).toContain('You said: \\"hello from box-a\\"');
    await shot(page, 'fleet-forward-1440');
    expect(await axeViolations(page)).toEqual([]);

    const phone = await suite.browser.newPage({ ...PHONE });
    await phone.goto(a.link);
    await goHash(phone, `#/s/${encodeURIComponent(sid)}`);
    await expect.poll(() => reply(phone).textContent(), { timeout: 20_000 }).toMatch(/\S/);
    await shot(phone, 'fleet-forward-390');
    expect(await axeViolations(phone)).toEqual([]);
    expect(errors).toEqual([]);
    await phone.close();
    await page.close();
  });
});
