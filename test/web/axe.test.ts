/**
 * Accessibility of every page and state a person meets, checked by axe-core in Chromium: the
 * session (idle, after a turn, an approval waiting, the approval dialog), the agents and settings
 * pages, the inspector, an observer's view, a phone, and dark mode. 0 serious or critical.
 */
import { describe, expect, it, vi } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { axeViolations, goHash } from './axe.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

async function clean(page: Page, state: string): Promise<void> {
  await shot(page, `axe-${state}`);
  expect(await axeViolations(page), state).toEqual([]);
}

describe('axe-core: 0 serious or critical violations', () => {
  let w!: World;
  let page!: Page;
  let id = '';
  webSuite('axe', {}, (world, p) => ((w = world), (page = p)));

  it('the home page, a fresh session, a finished turn, an approval card and its dialog', async () => {
    await clean(page, 'home');
    id = await newSession(page);
    await clean(page, 'session-fresh');
    await send(page, 'hello');
    await page.getByText('You said: "hello".').waitFor({ timeout: 30_000 });
    await clean(page, 'session-turn');
    writeFileSync(join(w.served.project, 'axe.txt'), 'a\n');
    await send(page, 'edit axe.txt');
    await page.getByRole('region', { name: /^Approval needed: Edit axe\.txt/ }).waitFor({ timeout: 30_000 });
    await clean(page, 'approval-card');
    await page.keyboard.press('d');
    await page.getByRole('dialog').waitFor();
    await clean(page, 'approval-dialog');
    await page
      .getByRole('dialog')
      .getByRole('button', { name: /^Allow once/ })
      .click();
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  });

  it('the agents page, settings and the inspector', async () => {
    for (const [state, hash] of [
      ['agents', '#/readiness'],
      ['settings', '#/settings'],
      ['inspector', `#/s/${encodeURIComponent(id)}/inspector`],
    ] as const) {
      await goHash(page, hash);
      await page.locator('main').first().waitFor();
      await page.waitForLoadState('networkidle');
      await clean(page, state);
    }
  });

  it("an observer's view, a phone, and dark mode", async () => {
    const obs = await openPage(w, { url: `${w.served.origin}/#token=${w.served.addToken('observer', 'axe')}` });
    await obs.getByRole('note').filter({ hasText: 'Read-only link' }).waitFor();
    await obs.locator(`[data-session="${id}"]`).click();
    await obs.getByText('Read-only: this link can watch, not prompt.').waitFor();
    await clean(obs, 'observer');
    await obs.context().close();

    const phone = await openPage(w, { viewport: { width: 390, height: 844 } });
    await openProject(phone, w.served.project);
    await goHash(phone, `#/s/${encodeURIComponent(id)}`);
    await phone.getByLabel('Message to the agent').waitFor();
    await clean(phone, 'phone');
    await phone.context().close();

    const dark = await w.browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'dark' });
    const d = await openPage(w, { context: dark });
    await openProject(d, w.served.project);
    await goHash(d, `#/s/${encodeURIComponent(id)}`);
    await d.getByLabel('Message to the agent').waitFor();
    await clean(d, 'dark');
    await dark.close();
  });
});
