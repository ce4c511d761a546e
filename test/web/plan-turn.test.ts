import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot, PHONE } from './browser.js';
import { axeViolations } from './axe.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';

/** The y of an element's top (px), for "above"/"below" in the thread. */
const top = async (p: Page, sel: string, text?: string): Promise<number> => {
  const l = text ? p.locator(sel, { hasText: text }).last() : p.locator(sel).last();
  return (await l.boundingBox())!.y;
};

/** The y of the user's message that is exactly "plan". */
const userPlanTop = async (p: Page): Promise<number> =>
  (await p.locator('.msg.user', { has: p.getByText('plan', { exact: true }) }).boundingBox())!.y;

/**
 * Issue 37 "Craft": the plan belongs to its turn. It is drawn in the thread after the user message
 * of the turn that made it; done, it is one line "Plan 3/3 ✓"; it is not pinned over later turns,
 * nor over a fork, and it stays in its place after a reload.
 */
describe('web: the plan belongs to its turn', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('plan-turn', {}, (x, p) => ((w = x), (page = p)));
  const thread = (p: Page) => p.getByTestId('thread');

  it('1440×900: done, the plan is one line "Plan 3/3 ✓" inside its turn; a later turn, a reload and a fork do not pin it', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await newSession(page);
    await send(page, 'plan');
    const plan = thread(page).locator('.plan');
    await expect.poll(() => plan.locator('summary').textContent(), { timeout: 30_000 }).toMatch(/^Plan 3\/3 done ✓/);
    // Shut once done: one line, what a person reads is "Plan 3/3 ✓".
    await expect.poll(() => plan.getAttribute('open')).toBeNull();
    expect((await plan.boundingBox())!.height).toBeLessThanOrEqual(40);
    expect((await plan.locator('summary').innerText()).replace(/\s+/g, ' ')).toMatch(/^Plan 3\/3 (done )?✓$/);
    // In its turn: after the user's "plan", before the agent's reply to it.
    await page.locator('.msg.agent', { hasText: 'it was a demo plan.' }).waitFor({ timeout: 30_000 });
    const planY = (await plan.boundingBox())!.y;
    expect(planY).toBeGreaterThan(await userPlanTop(page));
    expect(planY).toBeLessThan(await top(page, '.msg.agent', 'Step 1'));
    // Nothing pinned between the header and the thread.
    expect(await page.locator('.session-page > .plan').count()).toBe(0);
    expect(await axeViolations(page), 'plan in its turn').toEqual([]);
    await shot(page, 'plan-turn-done');

    // A later turn: the plan stays above it, in the turn that made it.
    await send(page, 'hello after the plan');
    await page.locator('.msg.agent', { hasText: 'hello after the plan' }).waitFor({ timeout: 30_000 });
    expect((await plan.boundingBox())!.y).toBeLessThan(await top(page, '.msg.user', 'hello after the plan'));
    expect(await plan.count()).toBe(1);
    await shot(page, 'plan-turn-later');

    // A reload keeps its place.
    await page.reload();
    await page.getByLabel('Message to the agent').waitFor();
    await plan.waitFor();
    expect((await plan.boundingBox())!.y).toBeLessThan(await top(page, '.msg.user', 'hello after the plan'));
    expect((await plan.boundingBox())!.y).toBeGreaterThan(await userPlanTop(page));

    // Another browser (nothing of this one's kept) draws it in the same turn: the server says which.
    const other = await w.browser.newContext({ viewport: { width: 1440, height: 900 } });
    const o = await openPage(w, { context: other });
    await o.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
    await o.goto(page.url());
    const otherPlan = thread(o).locator('.plan');
    await otherPlan.waitFor({ timeout: 30_000 });
    await o.locator('.msg.user', { hasText: 'hello after the plan' }).waitFor();
    expect((await otherPlan.boundingBox())!.y).toBeLessThan(await top(o, '.msg.user', 'hello after the plan'));
    expect((await otherPlan.boundingBox())!.y).toBeGreaterThan(await userPlanTop(o));
    await other.close();

    // A fork: the plan is not pinned over the forked conversation either.
    const before = page.url();
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: 'Fork' }).click();
    await page.waitForURL((u) => u.href !== before, { timeout: 20_000 });
    await page.locator('.msg.user', { hasText: 'hello after the plan' }).waitFor({ timeout: 20_000 });
    expect(await page.locator('.session-page > .plan').count()).toBe(0);
    const forked = thread(page).locator('.plan');
    // A fork made here keeps the plan in the turn that made it (the fork copies the entries).
    await forked.waitFor();
    expect((await forked.boundingBox())!.height).toBeLessThanOrEqual(40);
    expect((await forked.boundingBox())!.y).toBeLessThan(await top(page, '.msg.user', 'hello after the plan'));
    expect((await forked.boundingBox())!.y).toBeGreaterThan(await userPlanTop(page));
    await shot(page, 'plan-turn-fork');
    expect(w.errors).toEqual([]);
  });

  it('390×844: the plan is one line in its turn on a phone, and opens to its items', async () => {
    const ctx = await w.browser.newContext(PHONE);
    const p = await openPage(w, { context: ctx });
    await p.getByRole('button', { name: 'Sessions' }).tap();
    await openProject(p, w.served.project);
    await newSession(p);
    await send(p, 'plan');
    const plan = thread(p).locator('.plan');
    await expect.poll(() => plan.locator('summary').textContent(), { timeout: 30_000 }).toMatch(/^Plan 3\/3 done ✓/);
    await p.locator('.msg.agent', { hasText: 'it was a demo plan.' }).waitFor({ timeout: 30_000 });
    const box = (await plan.boundingBox())!;
    expect(box.height).toBeLessThanOrEqual(40);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await p.locator('.session-page > .plan').count()).toBe(0);
    await shot(p, 'plan-turn-phone');
    await plan.locator('summary').tap();
    await expect.poll(() => plan.locator('li').first().isVisible()).toBe(true);
    expect(await axeViolations(p), 'phone plan open').toEqual([]);
    await shot(p, 'plan-turn-phone-open');
    await ctx.close();
  });
});
