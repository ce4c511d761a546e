/**
 * A store outage in the browser (issue 39): another process holds the server's SQLite write lock
 * (test/harness/lock-holder-child.ts) while the demo agent streams. The session page says the work
 * is not saved yet (a calm status), a page opened during the outage says so from its snapshot,
 * both drop it once the store caught up; a session the store lost part of says so (an alert) and
 * keeps saying it. At 1440×900 and 390×844, with no axe violation while a banner shows.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { killLockHolders, lockHolder } from '../harness/lock-holder.js';
import { axeViolations, goHash } from './axe.js';
import { shot, PHONE } from './browser.js';
import { currentId, newSession, openPage, send, webSuite, type World } from './helpers.js';

const NO_SIDEWAYS = '(() => document.scrollingElement.scrollWidth <= window.innerWidth)()';

describe('web: a recording problem is never silent', { timeout: 180_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'recording-banner',
    {
      env: { TALARIA_STORE_BUSY_MS: '20', TALARIA_DEMO_SLOW_CHUNKS: '4000', TALARIA_DEMO_SLOW_DELAY_MS: '5' },
    },
    (x, p) => ((w = x), (page = p)),
  );
  afterEach(killLockHolders);

  const db = () => join(w.served.home, 'talaria', 'talaria.db');
  const delayed = (p: Page) => p.getByRole('status').filter({ hasText: 'Not saved yet' });
  const failed = (p: Page) => p.getByRole('alert').filter({ hasText: 'Some of this session was not saved' });

  async function phoneOn(id: string): Promise<Page> {
    const ctx = await w.browser.newContext(PHONE);
    const p = await openPage(w, { context: ctx });
    await p.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor({ state: 'attached' });
    await goHash(p, `#/s/${encodeURIComponent(id)}`);
    await p.getByLabel('Message to the agent').waitFor();
    return p;
  }

  it('delayed while the store is locked (live, and after a reload), gone once it caught up', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    const id = await newSession(page);
    await send(page, 'slow');
    await page
      .locator('.msg', { hasText: /Chunk \d+ of 4000/ })
      .first()
      .waitFor({ timeout: 30_000 });

    const lock = await lockHolder(db());
    await delayed(page).waitFor({ timeout: 30_000 });
    expect(await delayed(page).locator('span').last().textContent()).toMatch(
      /^Not saved yet: [\d,]+ updates? waiting for the store since \d?\d:\d\d(\s?[AP]M)? — Talaria keeps retrying$/,
    );
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'recording-delayed-1440');

    // A page opened now (a reload) shows it from the session's snapshot.
    const phone = await phoneOn(id);
    await delayed(phone).waitFor({ timeout: 30_000 });
    expect(await phone.evaluate(NO_SIDEWAYS)).toBe(true);
    expect(await axeViolations(phone)).toEqual([]);
    await shot(phone, 'recording-delayed-390');

    await lock.release();
    await delayed(page).waitFor({ state: 'detached', timeout: 30_000 });
    await delayed(phone).waitFor({ state: 'detached', timeout: 30_000 });
    await shot(page, 'recording-caught-up-1440');
    await w.api.api.cancel({ params: { id } });
    await phone.context().close();
    expect(w.errors).toEqual([]);
  });

  it('a session the store lost part of says so, with the error message, and keeps saying it', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await newSession(page);
    const id = currentId(page);
    const phone = await phoneOn(id);
    await send(page, 'slow');
    await page
      .locator('.msg', { hasText: /Chunk \d+ of 4000/ })
      .first()
      .waitFor({ timeout: 30_000 });
    const lock = await lockHolder(db());
    await delayed(page).waitFor({ timeout: 30_000 });
    // Another process deletes the session while it holds the lock: what waited can never be written.
    await lock.deleteSession(id);
    await lock.release();
    await failed(page).waitFor({ timeout: 30_000 });
    await failed(phone).waitFor({ timeout: 30_000 });
    const text = (await failed(page).locator('span').last().textContent()) ?? '';
    expect(text).toMatch(/^Some of this session was not saved: FOREIGN KEY/);
    expect(text).not.toMatch(/\n\s+at /);
    await w.api.api.cancel({ params: { id } }).catch(() => undefined);
    await delayed(page).waitFor({ state: 'detached', timeout: 30_000 });
    // The failure stays.
    expect(await failed(page).count()).toBe(1);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'recording-failed-1440');
    expect(await phone.evaluate(NO_SIDEWAYS)).toBe(true);
    expect(await axeViolations(phone)).toEqual([]);
    await shot(phone, 'recording-failed-390');
    await phone.context().close();
  });
});
