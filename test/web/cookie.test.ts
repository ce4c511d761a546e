/**
 * Issue 35 item 3: the page trades the link's `#token=` for this server's HttpOnly, SameSite=Strict
 * cookie (named after its port). No script reads it — ours, or a page on another 127.0.0.1 port —
 * a second server's link does not overwrite it, and a bad link in one tab leaves the others signed in.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServe, type Served } from './serve.js';
import { openPage, world, type World } from './helpers.js';

vi.setConfig({ testTimeout: 90_000 });

describe('web: the session cookie', () => {
  let w: World;
  let second: Served;
  beforeAll(async () => {
    w = await world();
    second = await startServe();
  }, 180_000);
  afterAll(async () => {
    await second?.stop();
    await w?.stop();
  });

  it('is HttpOnly and SameSite=Strict, named for this server; a bad link in another tab and a second server leave this tab working', async () => {
    const page = await openPage(w);
    const nav = page.getByRole('navigation', { name: 'Workspaces and sessions' });
    await nav.waitFor();
    const ctx = page.context();
    const cookies = await ctx.cookies(w.served.origin);
    const port = new URL(w.served.origin).port;
    expect(cookies.map((c) => [c.name, c.httpOnly, c.sameSite, c.path])).toEqual([
      [`talaria_token_${port}`, true, 'Strict', '/'],
    ]);
    // No script sees it.
    expect(await page.evaluate<string>('document.cookie')).not.toContain(w.served.token);

    // A page on another port of 127.0.0.1 (the second server) reads nothing and plants a bad cookie for /ws.
    const other = await ctx.newPage();
    await other.goto(second.origin + '/');
    expect(await other.evaluate<string>('document.cookie')).toBe('');
    await other.evaluate(`document.cookie = 'talaria_token_${port}=%E0%A4%A; path=/ws'`);
    // The second server's own link signs in to it, in the same browser, without touching the first one's cookie.
    await other.goto(second.url);
    await other.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();

    // A wrong link for this server in a third tab: refused, and nothing else changes.
    const bad = await ctx.newPage();
    await bad.goto(`${w.served.origin}/#token=not-the-right-token`);
    await expect
      .poll(() => bad.getByRole('heading', { level: 1 }).textContent())
      .toBe('This link’s token is not valid');

    // The first tab still works, after a reload too (its live socket reconnects with the real cookie).
    await page.reload();
    await nav.waitFor();
    await expect.poll(() => page.locator('.conn-banner').count()).toBe(0);
    const me = await page.evaluate<number>("fetch('/api/me').then((r) => r.status)");
    expect(me).toBe(200);
    expect(w.errors).toEqual([]);
    await ctx.close();
  });
});
