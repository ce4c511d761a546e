import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, webSuite, type World } from './helpers.js';

/**
 * The default agent (issue 37): config.json names Hermes, which is not installed here. The Agents
 * page and "+ New" agree on the agent a new session gets — the best ready one — and the page says why.
 */
describe('web: one default agent on the Agents page and in "+ New"', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('default-agent', { config: { defaultProvider: 'hermes' } }, (x, p) => ((w = x), (page = p)));

  const mainButton = () => page.getByRole('button', { name: /^New session with/ }).first();

  it('configured Hermes is not ready: the page and "+ New" both name the best ready agent, and the page says why', async () => {
    await page.goto(`${w.served.origin}/#/readiness`);
    const ws = (await w.api.api.workspaces()).workspaces[0]!;
    const now = page.locator(`.default-now[data-workspace="${ws.id}"]`);
    // Once readiness is known (Hermes: not ready), the page states the pick and the reason.
    await expect.poll(() => now.textContent(), { timeout: 30_000 }).toMatch(/New sessions: Demo agent/);
    const why = (await now.textContent()) ?? '';
    expect(why).toMatch(/Hermes.*config\.json.*not ready/);
    expect(why).toMatch(/best ready agent: Demo agent/);
    // The workspace is on "Automatic" (no binding of its own), not shown as Hermes.
    const pick = page.getByLabel(/^Default agent for /);
    expect(await pick.inputValue()).toBe('');
    expect(await pick.locator('option:checked').textContent()).toMatch(/^Automatic/);
    await shot(page, 'default-agent-best-ready');

    // "+ New" says and does the same.
    await expect.poll(() => mainButton().getAttribute('aria-label')).toBe('New session with Demo agent');
    expect(await mainButton().isEnabled()).toBe(true);
    const id = await newSession(page);
    expect(currentId(page)).toBe(id);
    await expect
      .poll(async () => (await w.api.api.snapshot({ params: { id } })).snapshot.session.provider)
      .toBe('demo');
    expect(w.errors).toEqual([]);
  });

  it('a workspace choice wins while ready; "Automatic" clears it again, on the server too', async () => {
    await page.goto(`${w.served.origin}/#/readiness`);
    const ws = (await w.api.api.workspaces()).workspaces[0]!;
    const now = page.locator(`.default-now[data-workspace="${ws.id}"]`);
    const pick = page.getByLabel(/^Default agent for /);
    // A not-ready agent chosen for the workspace is named, with the reason it is passed over.
    await pick.selectOption('hermes');
    await expect.poll(() => now.textContent()).toMatch(/Hermes.*chosen for this workspace but is not ready/);
    expect(await now.textContent()).toMatch(/New sessions: Demo agent/);
    await expect.poll(() => mainButton().getAttribute('aria-label')).toBe('New session with Demo agent');
    await pick.selectOption('demo');
    await expect.poll(() => now.textContent()).toMatch(/Demo agent is chosen for this workspace\./);
    expect((await w.api.api.workspaces()).workspaces[0]!.provider).toBe('demo');
    await pick.selectOption('');
    await expect.poll(async () => (await w.api.api.workspaces()).workspaces[0]!.provider).toBeUndefined();
    await page.reload();
    await expect
      .poll(() => page.locator(`.default-now[data-workspace="${ws.id}"]`).textContent(), { timeout: 30_000 })
      .toMatch(/best ready agent: Demo agent/);
    expect(await page.getByLabel(/^Default agent for /).inputValue()).toBe('');
    await shot(page, 'default-agent-automatic');
    expect(w.errors).toEqual([]);
  });
});
