import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { axeViolations, goHash } from './axe.js';
import { currentId, send, webSuite, type World } from './helpers.js';
import { darkToo, shotBoth } from './sizes.js';
import { seedRealCliRows, seedTelegramSession } from '../fakes/hermes/channel-rows.js';

/**
 * Issue 38 item 5 in the web UI: "Other Hermes sessions" — Hermes' conversations from its CLI and
 * messaging channels (the rows real 0.18.2 wrote for `hermes chat -q`, a telegram conversation by
 * the real schema) listed and shown read-only from its state.db, and "Continue in Talaria", which
 * opens a new Hermes session that gets the transcript with the next message.
 */
describe('web: other Hermes sessions', { timeout: 180_000 }, () => {
  let page: Page;
  let w: World;
  webSuite('hermes-channels', { hermes: true, config: { defaultProvider: 'demo' } }, (world, p) => {
    w = world;
    page = p;
  });

  it('lists them, shows one read-only with its tool calls, and continues one in Talaria', async () => {
    const hermesHome = join(w.served.home, 'hermes');
    seedRealCliRows(hermesHome);
    const { id: tg } = seedTelegramSession(hermesHome, { continued: true, at: Date.now() / 1000 + 60 });

    await page.getByRole('link', { name: 'Other Hermes sessions' }).click();
    await page.getByRole('heading', { name: 'Other Hermes sessions' }).waitFor();
    const items = page.locator('.hermes-list li');
    await expect.poll(async () => items.count()).toBe(3);
    const texts = await items.allTextContents();
    expect(texts[0]).toMatch(/^Grocery list #2telegram .* · 7 messages · 3,550 tokens · no price$/);
    expect(texts[1]).toMatch(
      /^The secret codeword is PELICAN-42\. Please remember it\.cli .* · 4 messages · 8,104 tokens · no price$/,
    );
    expect(texts[2]).toMatch(/^TOOLS please, in this foldercli .* · 8 messages · 16,742 tokens · no price$/);
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'hermes-channels-list');
    expect(await darkToo(page, 'hermes-channels-list', axeViolations)).toEqual([]);

    await page.getByRole('link', { name: 'TOOLS please, in this folder' }).click();
    const log = page.getByRole('log', { name: 'Messages (read-only)' });
    await log.waitFor();
    await expect.poll(async () => log.locator('.tool-card').count()).toBeGreaterThanOrEqual(3);
    expect(await log.textContent()).toContain('All three tools ran. Done.');
    expect(await page.getByLabel('Message to the agent').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'hermes-channels-thread');
    expect(await darkToo(page, 'hermes-channels-thread', axeViolations)).toEqual([]);

    await goHash(page, `#/hermes/default/${tg}`);
    await page.getByRole('heading', { name: 'Grocery list #2' }).waitFor();
    expect(await page.getByRole('log', { name: 'Messages (read-only)' }).textContent()).toContain(
      'Eggs, milk and bread.',
    );
    await page.getByRole('button', { name: 'Continue in Talaria' }).click();
    await page.waitForURL(/#\/s\//);
    const id = currentId(page);
    await page.getByLabel('Message to the agent').waitFor();
    await page.locator('.notice[data-code="branched"]').waitFor();
    expect(await page.locator('main').textContent()).toContain('Add eggs and milk to the grocery list');
    await send(page, 'What is on the list?');
    await page
      .locator('.notice[data-code="history_seeded"], .notice[data-code="context_reseeded"]')
      .first()
      .waitFor({ timeout: 60_000 });
    const { snapshot } = await w.api.api.snapshot({ params: { id } });
    expect(snapshot.session.provider).toBe('hermes');
    await shotBoth(page, 'hermes-channels-continued');
    expect(await axeViolations(page)).toEqual([]);
    expect(w.errors).toEqual([]);
  });
});
