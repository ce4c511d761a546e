import { freePort } from '../cli/helpers.js';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, openPage, send, webSuite, type World } from './helpers.js';

const port = await freePort();

/**
 * Issue 37: a restart of `talaria serve` on the same port keeps the token, so an open tab
 * reconnects by itself, a reload stays signed in, and the printed link still opens the app.
 */
describe('web: an open tab and the printed link survive a server restart', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  // The last --port wins: this server keeps one port across its restart, as a person's would.
  webSuite('restart-link', { args: ['--port', String(port)] }, (x, p) => ((w = x), (page = p)));

  it('the tab reconnects, a reload keeps the session open, and the old link still works', async () => {
    const id = await newSession(page);
    await send(page, 'before the restart');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('before the restart');
    const link = w.served.url;

    await w.served.restart();
    // The same link: same port, same token.
    expect(w.served.url).toBe(link);
    // The open tab finds the server again (no token page, no new link needed).
    await page.getByText('Reconnecting to the server…').waitFor({ state: 'detached', timeout: 30_000 });
    await page.reload();
    await page.getByLabel('Message to the agent').waitFor({ timeout: 30_000 });
    expect(currentId(page)).toBe(id);
    await send(page, 'after the restart');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('after the restart');
    await shot(page, 'restart-same-link');

    // A bookmark of the printed link opens the app in a fresh browser.
    const fresh = await openPage(w, { url: link });
    await fresh.locator(`[data-session="${id}"]`).waitFor({ timeout: 30_000 });
    expect(await fresh.getByRole('heading', { name: 'This link’s token is not valid' }).count()).toBe(0);
    expect(w.errors).toEqual([]);
    await fresh.context().close();
  });
});
