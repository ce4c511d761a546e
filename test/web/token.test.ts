import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shot } from './browser.js';
import { openPage, world, type World } from './helpers.js';

describe('web: the token page', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  }, 120_000);
  afterAll(async () => w?.stop());

  it('a wrong token shows a page that says so and what to do; nothing else loads', async () => {
    const page = await openPage(w, { url: `${w.served.origin}/#token=not-the-right-token` });
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('This link’s token is not valid');
    await expect.poll(() => page.textContent('main')).toContain('talaria serve tokens add');
    expect(await page.getByRole('navigation', { name: 'Workspaces and sessions' }).count()).toBe(0);
    // The token is not left in the address bar.
    expect(new URL(page.url()).hash).not.toContain('not-the-right-token');
    await shot(page, 'token-bad');
    await page.context().close();
  });

  it('dark and light follow the system', async () => {
    const bg = async (scheme: 'dark' | 'light'): Promise<string> => {
      const ctx = await w.browser.newContext({ colorScheme: scheme });
      const page = await openPage(w, { context: ctx });
      await page.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
      if (scheme === 'dark') await shot(page, 'dark');
      const c = await page.evaluate<string>('getComputedStyle(document.body).backgroundColor');
      await ctx.close();
      return c;
    };
    expect(await bg('dark')).toBe('rgb(22, 24, 29)');
    expect(await bg('light')).toBe('rgb(255, 255, 255)');
  });

  it('no token at all explains where the link comes from', async () => {
    const page = await openPage(w, { url: `${w.served.origin}/` });
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('Open Talaria from the link it printed');
    await page.context().close();
  });

  it('the printed link opens the app, and a refresh keeps it open (token kept for this tab)', async () => {
    const page = await openPage(w);
    await page.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
    expect(new URL(page.url()).hash).not.toContain(w.served.token);
    await page.reload();
    await page.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
    expect(w.errors).toEqual([]);
    await page.context().close();
  });
});
