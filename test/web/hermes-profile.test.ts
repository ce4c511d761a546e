import { mkdirSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { shot } from './browser.js';
import { currentId, newSession, openPage, openProject, webSuite, type World } from './helpers.js';
import { workspaceProfileName } from '../../src/providers/hermes/profile-create.js';

/**
 * Issue 38 item 2 in the web UI: the Hermes pill picks the profile new sessions of its workspace
 * use — Hermes' active one, a named one, or the workspace's own (made by its first Hermes session,
 * `hermes profile create NAME --clone`), on the Hermes emulator.
 */
describe('web: the Hermes profile picker', { timeout: 150_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('hermes-profile', { hermes: true, config: { defaultProvider: 'hermes' } }, (x, p) => ((w = x), (page = p)));

  const hermesHome = () => join(w.served.home, 'hermes');
  const pill = (p: Page) => p.locator('.session-header .profile-picker button.pill-btn');

  it('the own-profile toggle: the next session is created in talaria-<folder>-<hash> and its pill says so', async () => {
    mkdirSync(join(hermesHome(), 'profiles', 'coder'), { recursive: true });
    writeFileSync(
      join(hermesHome(), 'profiles', 'coder', 'config.yaml'),
      'model:\n  default: coder-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
    );
    const own = workspaceProfileName(w.served.project);

    await newSession(page);
    await expect.poll(() => pill(page).textContent(), { timeout: 30_000 }).toMatch(/^Hermes Agent\s*· active/);
    await pill(page).click();
    const dialog = page.getByRole('dialog', { name: /Hermes profile for new sessions in/ });
    await dialog.getByText('coder').waitFor({ timeout: 30_000 });
    expect(await dialog.getByRole('radio', { name: "Hermes' active profile" }).isChecked()).toBe(true);
    expect(await dialog.locator('code').textContent()).toBe(own);
    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'hermes-profile-picker-desktop');

    await dialog.getByRole('checkbox', { name: 'Own profile for this workspace' }).check();
    await expect.poll(async () => (await w.api.api.workspaces()).workspaces[0]!.ownProfile).toBe(own);
    expect(await dialog.getByRole('radio', { name: 'coder' }).isDisabled()).toBe(true);
    expect(existsSync(join(hermesHome(), 'profiles', own))).toBe(false);
    await page.keyboard.press('Escape');

    const before = currentId(page);
    const id = await newSession(page);
    expect(id).not.toBe(before);
    await expect.poll(() => pill(page).textContent(), { timeout: 30_000 }).toMatch(new RegExp(`· ${own}`));
    const snap = (await w.api.api.snapshot({ params: { id } })).snapshot.session;
    expect(snap.profile).toBe(own);
    expect(existsSync(join(hermesHome(), 'profiles', own, 'config.yaml'))).toBe(true);
    await pill(page).click();
    await dialog.getByText('its own config, .env, SOUL.md, skills and memories').waitFor({ timeout: 30_000 });
    await shot(page, 'hermes-profile-own-desktop');
    expect(await axeViolations(page)).toEqual([]);

    // A named profile turns the own one off; the "+ New" menu names it on the Hermes row.
    await dialog.getByRole('checkbox', { name: 'Own profile for this workspace' }).uncheck();
    await dialog.getByRole('radio', { name: 'coder' }).check();
    await expect.poll(async () => (await w.api.api.workspaces()).workspaces[0]).toMatchObject({ profile: 'coder' });
    expect((await w.api.api.workspaces()).workspaces[0]!.ownProfile).toBeUndefined();
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    await expect.poll(() => page.getByRole('menuitem', { name: /Hermes Agent/ }).textContent()).toMatch(/· coder/);
    await shot(page, 'hermes-profile-new-menu');
    await page.keyboard.press('Escape');
    expect(w.errors).toEqual([]);
  });

  it('phone (390×844) and desktop (1440×900), light and dark: the picker fits, axe clean', async () => {
    for (const colorScheme of ['light', 'dark'] as const) {
      const ctx = await w.browser.newContext({ viewport: { width: 390, height: 844 }, colorScheme });
      const p = await openPage(w, { context: ctx });
      await openProject(p, w.served.project);
      const sid = (await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.provider === 'hermes')!.id;
      await p.goto(`${w.served.origin}/#/s/${encodeURIComponent(sid)}`);
      await pill(p).waitFor({ timeout: 30_000 });
      await pill(p).click();
      const dialog = p.getByRole('dialog', { name: /Hermes profile for new sessions in/ });
      await dialog.getByRole('radio', { name: 'coder' }).waitFor({ timeout: 30_000 });
      const box = (await dialog.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(390);
      expect(await axeViolations(p)).toEqual([]);
      await shot(p, `hermes-profile-picker-phone-${colorScheme}`);
      {
        const d = await w.browser.newContext({ viewport: { width: 1440, height: 900 }, colorScheme });
        const q = await openPage(w, { context: d });
        await openProject(q, w.served.project);
        await q.goto(`${w.served.origin}/#/s/${encodeURIComponent(sid)}`);
        await pill(q).click();
        await q.getByRole('dialog').getByRole('radio', { name: 'coder' }).waitFor({ timeout: 30_000 });
        expect(await axeViolations(q)).toEqual([]);
        await shot(q, `hermes-profile-picker-1440-${colorScheme}`);
        await d.close();
      }
      await ctx.close();
    }
    expect(w.errors).toEqual([]);
  });
});
