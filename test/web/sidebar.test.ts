import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

/**
 * The sidebar lists the sessions only the agent has (its own history, never stored in Talaria),
 * marked as such; a click opens one through the server and shows its history.
 */
describe('web: sessions only the agent lists', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  // The fake agent starts holding session old-1 in the folder it runs in (the workspace): made before Talaria.
  webSuite(
    'sidebar',
    {
      config: {
        defaultProvider: 'fake',
        agents: { fake: { ...sdkAgent({ SDK_AGENT_SEED: 'old-1' }), label: 'Fake agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  it('listed and marked; a click opens it (the agent loads it), shows its history, and it is stored from then on', async () => {
    const row = page.locator('[data-session="old-1"]');
    await row.waitFor({ timeout: 60_000 });
    expect(await row.getAttribute('data-agent-only')).toBe('true');
    expect(await row.textContent()).toMatch(/at agent/);
    expect(await row.textContent()).toMatch(/not yet in Talaria/);
    await shot(page, 'sidebar-agent-only');

    await row.click();
    await page.waitForURL((u) => /#\/s\//.test(u.href) && !u.href.endsWith('/old-1'), { timeout: 60_000 });
    await page.locator('.msg.user', { hasText: 'asked before Talaria' }).waitFor({ timeout: 30_000 });
    await page.locator('.msg.agent', { hasText: 'answered before Talaria' }).waitFor({ timeout: 30_000 });
    const id = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);

    // Stored under Talaria's id: one row, no longer marked; the server holds the agent's history.
    const { sessions } = await w.api.api.listSessions({ query: {} });
    expect(sessions.find((s) => s.id === id)).toMatchObject({
      stored: true,
      agentSessionId: 'old-1',
      provider: 'fake',
    });
    await expect.poll(() => page.locator('[data-agent-only]').count()).toBe(0);
    expect(await page.locator(`[data-session="${id}"]`).count()).toBe(1);
    expect(await page.locator(`[data-session="${id}"] .session-title`).textContent()).toBe('t old-1');
    await shot(page, 'sidebar-agent-only-opened');
    expect(w.errors).toEqual([]);
  });
});
