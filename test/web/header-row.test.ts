import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot, PHONE } from './browser.js';
import { axeViolations } from './axe.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

/** The tops and bottoms of the header's direct children: one row means they all overlap one band. */
const ROWS = `(() => {
  const h = document.querySelector('.session-header');
  const r = h.getBoundingClientRect();
  const kids = [...h.children].map((e) => e.getBoundingClientRect()).filter((b) => b.width > 0);
  return { height: r.height, right: Math.max(...kids.map((b) => b.right)), width: r.right, tops: kids.map((b) => b.top), bottoms: kids.map((b) => b.bottom) };
})()`;
interface Rows {
  height: number;
  right: number;
  width: number;
  tops: number[];
  bottoms: number[];
}
const oneRow = (r: Rows): boolean => Math.max(...r.tops) < Math.min(...r.bottoms);

/**
 * Issue 37 "Craft", the header: one calm row at 1440×900 before and after the first turn (title,
 * agent pill, model and mode pickers, a context ring with the numbers on hover, one ⋯ menu for the
 * session's actions), the same menu on a phone, every action reachable by keyboard.
 */
describe('web: the session header is one row with one actions menu', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'header-row',
    {
      config: {
        defaultProvider: 'demo',
        agents: { paid: { ...sdkAgent({ SDK_AGENT_COST: '0.0125' }), label: 'Paid agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  it('desktop 1440×900: one row before and after the first turn; the ring shows the percentage and its numbers on hover', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await newSession(page);
    await page.getByRole('combobox', { name: 'Agent', exact: true }).waitFor();
    const fresh = await page.evaluate<Rows>(ROWS);
    expect(oneRow(fresh), 'fresh header in one row').toBe(true);
    expect(fresh.height).toBeLessThanOrEqual(50);
    await shot(page, 'header-row-fresh');
    await send(
      page,
      'hello, this is a rather long first message so that the title of the session gets long enough to be cut',
    );
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole('button', { name: /^Stop/ }).count(), { timeout: 30_000 }).toBe(0);
    const after = await page.evaluate<Rows>(ROWS);
    expect(oneRow(after), 'header in one row after the first turn').toBe(true);
    expect(after.height).toBeLessThanOrEqual(50);
    expect(after.right).toBeLessThanOrEqual(after.width);
    // Model and mode are compact pickers; the agent is a pill.
    expect(await page.getByRole('combobox', { name: 'Model', exact: true }).isVisible()).toBe(true);
    expect(await page.getByRole('combobox', { name: 'Mode', exact: true }).isVisible()).toBe(true);
    expect(await page.locator('.session-header .pill').isVisible()).toBe(true);
    // The context ring: hovering it shows tokens per turn and per session.
    const ring = page.getByRole('meter', { name: 'Context used' });
    expect(await ring.locator('svg circle.ctx-track').count()).toBe(1);
    const tip = page.getByRole('tooltip');
    expect(await tip.isVisible()).toBe(false);
    await ring.hover();
    await tip.waitFor();
    expect(await tip.textContent()).toMatch(/Tokens \S+ turn · \S+ session/);
    await shot(page, 'header-row-ring-tip');
    await page.mouse.move(700, 500);
    await expect.poll(() => tip.isVisible()).toBe(false);
    expect(await axeViolations(page), 'after a turn').toEqual([]);
    await shot(page, 'header-row-after-turn');
    expect(w.errors).toEqual([]);
  });

  it('the cost the agent reports is in the ring tooltip; the header stays one row', async () => {
    const before = page.url();
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    await page.getByRole('menuitem', { name: /Paid agent/ }).click();
    await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
    await page.getByLabel('Message to the agent').waitFor();
    await send(page, 'one');
    await expect
      .poll(() => page.locator('.session-header .ctx-tip').textContent(), { timeout: 30_000 })
      .toMatch(/Cost 0\.0125 USD/);
    await page.getByRole('meter', { name: 'Context used' }).focus();
    await page.getByRole('tooltip').waitFor();
    expect(oneRow(await page.evaluate<Rows>(ROWS))).toBe(true);
    await shot(page, 'header-row-cost');
  });

  it('the ⋯ menu by keyboard: aria-haspopup and aria-expanded, menuitems, arrows, Escape gives the focus back', async () => {
    await newSession(page);
    await send(page, 'hello');
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole('button', { name: /^Stop/ }).count(), { timeout: 30_000 }).toBe(0);
    const more = page.getByRole('button', { name: 'More actions' });
    expect(await more.getAttribute('aria-haspopup')).toBe('menu');
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    await more.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu', { name: 'More actions' });
    await menu.waitFor();
    expect(await more.getAttribute('aria-expanded')).toBe('true');
    const names = (await menu.getByRole('menuitem').allTextContents()).map((t) => t.replace(/[▾▴]/g, '').trim());
    expect(names).toEqual([
      'Inspector',
      'Export .md',
      'Export .json',
      'Export wire log',
      'Fork',
      'Continue with another agent…',
      'Archive',
    ]);
    // The first item has the focus; the arrows move it (and wrap).
    const focused = (): Promise<string> => page.evaluate<string>('document.activeElement?.textContent ?? ""');
    expect(await focused()).toBe('Inspector');
    await page.keyboard.press('ArrowDown');
    expect(await focused()).toBe('Export .md');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(await focused()).toBe('Archive');
    // The submenu of agents opens in place, by keyboard too.
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    const agents = page.getByRole('menu', { name: 'Continue with another agent' });
    await agents.waitFor();
    expect(await agents.getByRole('menuitem', { name: /^Paid agent/ }).count()).toBe(1);
    expect(await axeViolations(page), 'menu open').toEqual([]);
    await shot(page, 'header-row-menu');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    expect(await more.getAttribute('aria-expanded')).toBe('false');
    expect(await page.evaluate<string>('document.activeElement?.getAttribute("aria-label") ?? ""')).toBe(
      'More actions',
    );
    // Escape shut the menu only: the session and its thread are as they were.
    expect(await page.getByLabel('Message to the agent').isVisible()).toBe(true);
    expect(w.errors).toEqual([]);
  });

  it('phone 390×844: the same menu component; title, pill and ⋯ on one line, pickers and ring under it', async () => {
    const ctx = await w.browser.newContext(PHONE);
    const p = await openPage(w, { context: ctx });
    await p.getByRole('button', { name: 'Sessions' }).tap();
    await openProject(p, w.served.project);
    await newSession(p);
    await send(p, 'hello');
    await p.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => p.getByRole('button', { name: /^Stop/ }).count(), { timeout: 30_000 }).toBe(0);
    const r = await p.evaluate<Rows>(ROWS);
    expect(r.height).toBeLessThanOrEqual(90);
    expect(r.right).toBeLessThanOrEqual(390);
    const more = p.getByRole('button', { name: 'More actions' });
    expect(await more.getAttribute('aria-haspopup')).toBe('menu');
    await more.tap();
    const menu = p.getByRole('menu', { name: 'More actions' });
    await menu.waitFor();
    const mb = (await menu.boundingBox())!;
    expect(mb.x).toBeGreaterThanOrEqual(0);
    expect(mb.x + mb.width).toBeLessThanOrEqual(390);
    expect(await menu.getByRole('menuitem').count()).toBe(7);
    expect(await axeViolations(p), 'phone menu open').toEqual([]);
    await shot(p, 'header-row-phone-menu');
    await p.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    await shot(p, 'header-row-phone');
    expect(w.errors).toEqual([]);
    await ctx.close();
  });
});
