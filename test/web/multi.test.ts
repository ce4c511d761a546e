import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';

/** Two contexts on one session (a controller and an observer link), and a phone-width approval. */
describe('web: several clients, phone width', { timeout: 90_000 }, () => {
  let w: World;
  // The suite's page is the controller of the first test (the test project open in it).
  let ctl: Page;
  webSuite('multi', {}, (x, p) => ((w = x), (ctl = p)));

  it('an observer link sees the live session read-only, cannot act, and sees who answered', async () => {
    const id = await newSession(ctl);
    const obsToken = w.served.addToken('observer', 'watcher');
    const obs = await openPage(w, { url: `${w.served.origin}/#token=${obsToken}` });
    await obs.getByRole('note').filter({ hasText: 'Read-only link' }).waitFor();
    await obs.locator(`[data-session="${id}"]`).click();
    await obs.getByText('Read-only: this link can watch, not prompt.').waitFor();
    expect(await obs.getByRole('button', { name: /New session with/ }).count()).toBe(0);

    writeFileSync(join(w.served.project, 'shared.txt'), 'one\n');
    await send(ctl, 'edit shared.txt');
    const obsCard = obs.getByRole('region', { name: /^Approval needed: Edit shared\.txt/ });
    await obsCard.waitFor({ timeout: 20_000 });
    // No buttons for the observer, and its one-key answers do nothing.
    expect(await obsCard.getByRole('button').count()).toBe(0);
    await obs.keyboard.press('1');
    // Acting through the API with the observer's cookie is refused with a clear error.
    const requestKey = (await obsCard.getAttribute('data-request'))!;
    const refused = await obs.evaluate(
      async ([sid, key]) => {
        const r = await fetch(`/api/sessions/${encodeURIComponent(sid!)}/permissions/${encodeURIComponent(key!)}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ optionId: 'allow' }),
        });
        return { status: r.status, body: (await r.json()) as { code: string } };
      },
      [id, requestKey],
    );
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('forbidden');
    expect((await w.api.api.permissions({ params: { id } })).pending).toHaveLength(1);
    await shot(obs, 'observer-pending');

    await ctl
      .getByRole('region', { name: /^Approval needed: Edit shared\.txt/ })
      .getByRole('button', { name: /^Allow once/ })
      .click();
    const obsTool = obs.locator('.tool-card', { hasText: 'Edit shared.txt' }).last();
    await expect.poll(() => obsTool.locator('.tool-status').textContent(), { timeout: 20_000 }).toBe('done');
    await expect.poll(() => obsTool.locator('.perm-line').textContent()).toMatch(/^Allowed by /);
    expect(readFileSync(join(w.served.project, 'shared.txt'), 'utf8')).toContain('Edited by the Talaria demo agent.');
    await shot(obs, 'observer-answered');
    await ctl.context().close();
    await obs.context().close();
  });

  it('phone width: the approval fits and is answered with one thumb', async () => {
    const ctx = await w.browser.newContext({
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      deviceScaleFactor: 2,
    });
    const page = await openPage(w, { context: ctx });
    // The sidebar slides over the chat on a phone.
    await page.getByRole('button', { name: 'Sessions' }).tap();
    await openProject(page, w.served.project);
    await newSession(page);
    writeFileSync(join(w.served.project, 'phone.txt'), 'tap\n');
    await send(page, 'edit phone.txt');
    const card = page.getByRole('region', { name: /^Approval needed: Edit phone\.txt/ });
    await card.waitFor({ timeout: 20_000 });
    const allow = card.getByRole('button', { name: /^Allow once/ });
    await allow.scrollIntoViewIfNeeded();
    const box = (await allow.boundingBox())!;
    // Thumb-sized and inside the screen.
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    expect(await page.evaluate<number>('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await shot(page, 'phone-approval');
    await allow.tap();
    const tool = page.locator('.tool-card', { hasText: 'Edit phone.txt' }).last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 20_000 }).toBe('done');
    expect(readFileSync(join(w.served.project, 'phone.txt'), 'utf8')).toContain('Edited by the Talaria demo agent.');
    await shot(page, 'phone-done');
    expect(w.errors).toEqual([]);
    await ctx.close();
  });
});
