import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { webSuite, type World } from './helpers.js';

/** What has the focus: its tag and accessible label (a string: the test's tsconfig has no DOM types). */
const FOCUSED = `(() => { const a = document.activeElement; return a ? a.tagName + ' ' + (a.getAttribute('aria-label') ?? a.textContent ?? '').trim() : ''; })()`;

/** Keyboard only: from the page load, Tab and Enter start a session, send a prompt and answer its approval. */
describe('web: keyboard only', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('keyboard', {}, (x, p) => ((w = x), (page = p)));

  async function tabTo(match: RegExp): Promise<string> {
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const f = await page.evaluate<string>(FOCUSED);
      seen.push(f);
      if (match.test(f)) return f;
    }
    throw new Error(`Tab never reached ${match}: ${seen.join(' | ')}`);
  }

  it('Tab/Enter reach the composer, Enter sends, the approval is answered with Enter', async () => {
    writeFileSync(join(w.served.project, 'keys.txt'), 'before\n');
    await page.reload();
    await page.getByRole('region', { name: /^Workspace / }).waitFor();
    await tabTo(/^BUTTON New session with/);
    const before = page.url();
    await page.keyboard.press('Enter');
    await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
    await page.getByLabel('Message to the agent').waitFor();
    if (!/^TEXTAREA Message to the agent/.test(await page.evaluate<string>(FOCUSED)))
      await tabTo(/^TEXTAREA Message to the agent/);
    await page.keyboard.type('edit keys.txt');
    await shot(page, 'keyboard-composer');
    await page.keyboard.press('Enter');

    const card = page.getByRole('region', { name: /^Approval needed: Edit keys\.txt/ });
    await card.waitFor({ timeout: 30_000 });
    // The request takes the focus (the composer is empty): its first answer is "Allow once".
    await expect.poll(() => page.evaluate<string>(FOCUSED), { timeout: 10_000 }).toMatch(/^BUTTON Allow once/);
    await shot(page, 'keyboard-approval-focused');
    await page.keyboard.press('Enter');
    const tool = page.locator('.tool-card', { hasText: 'Edit keys.txt' }).last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    expect(await card.count()).toBe(0);
    // The composer has the focus back for the next prompt.
    await expect
      .poll(() => page.evaluate<string>(FOCUSED), { timeout: 10_000 })
      .toMatch(/^TEXTAREA Message to the agent/);
    await shot(page, 'keyboard-approved');
    expect(w.errors).toEqual([]);
  });
});
