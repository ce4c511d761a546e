import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, send, webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

// An agent started through a link to node: removing the link later opens a readiness gap (not found).
const LINKS = mkdtempSync(join(tmpdir(), 'talaria-web-gone-'));
const NODE_LINK = join(LINKS, 'node');
symlinkSync(process.execPath, NODE_LINK);

/**
 * The sidebar row's status dot (running, then idle; agent not ready) and its last-activity and preview text.
 * (Failed is not tested: a failed turn leaves the session idle, and a crash's failed state is over
 * before the page hears of it — reported on issue 11.)
 */
describe('web: the status dot and last activity of a sidebar row', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'status-dot',
    {
      config: {
        defaultProvider: 'demo',
        agents: { gone: { ...sdkAgent(), command: NODE_LINK, label: 'Vanishing agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const dot = (id: string) => page.locator(`[data-session="${id}"] .dot`);

  async function startWith(label: RegExp): Promise<string> {
    const before = page.url();
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    await page.getByRole('menuitem', { name: label }).first().click();
    await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
    await page.getByLabel('Message to the agent').waitFor();
    return currentId(page);
  }

  it('running during a slow turn, idle after it; the row shows the last activity and a preview', async () => {
    const id = await newSession(page);
    await send(page, 'slow');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 20_000 }).toBe('running');
    expect(await dot(id).getAttribute('class')).toContain('dot-running');
    await shot(page, 'status-dot-running');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('idle');
    const row = page.locator(`[data-session="${id}"]`);
    expect(await row.locator('.session-line2 .muted').textContent()).toBe('just now');
    await expect.poll(() => row.locator('.session-preview').textContent(), { timeout: 10_000 }).toMatch(/\S/);
    await shot(page, 'status-dot-idle');
  });

  it('agent not ready when its agent has a readiness gap', async () => {
    const id = await startWith(/Vanishing agent/);
    await send(page, 'hello');
    await page.locator('.msg.agent').last().waitFor({ timeout: 30_000 });
    expect(await dot(id).getAttribute('aria-label')).not.toBe('agent not ready');
    rmSync(LINKS, { recursive: true, force: true });
    // The server re-checks (as the readiness page's "Check again" does); the page reads it on load.
    const { providers } = await w.api.api.readiness({ query: { refresh: 'true' } });
    expect(providers.find((p) => p.id === 'gone')?.ready).toBe(false);
    await page.reload();
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('agent not ready');
    expect(await dot(id).getAttribute('class')).toContain('dot-not-ready');
    // The header's dot for the same session says the same (it stayed green before).
    const head = page.locator('.session-header .dot');
    expect(await head.getAttribute('aria-label')).toBe('agent not ready');
    expect(await head.getAttribute('class')).toContain('dot-not-ready');
    await shot(page, 'status-dot-not-ready');
    expect(w.errors).toEqual([]);
  });
});
