import { afterAll, describe, expect, it } from 'vitest';
import { shot } from './browser.js';
import { openPage, world, type World } from './helpers.js';
import { badFrameFixture } from '../server/wire-fixtures.js';

/** The inspector highlights the frames that failed the ACP schema, with the checker's reason (issue 10). */
describe('web: inspector schema problems', { timeout: 90_000 }, () => {
  let w: World | undefined;
  afterAll(async () => w?.stop());

  it('a stored session with a bad frame: that row, and only it, is highlighted with its problem', async () => {
    w = await world();
    const { session } = await w.api.api.importSession({
      body: { text: badFrameFixture(w.served.project), provider: 'demo', cwd: w.served.project, title: 'Bad frame' },
    });
    const page = await openPage(w);
    await page.getByRole('navigation', { name: 'Workspaces and sessions' }).waitFor();
    await page.goto(`${w.served.origin}/#/s/${encodeURIComponent(session.id)}/inspector`);
    await page.getByRole('heading', { name: 'Protocol inspector' }).waitFor();
    const frames = page.getByRole('list', { name: 'Wire frames' }).locator('li');
    await expect.poll(() => frames.count(), { timeout: 20_000 }).toBe(8);
    const bad = page.locator('.frame.frame-bad');
    expect(await bad.count()).toBe(1);
    // The 6th frame (seq 6): the chunk whose content type is "txt".
    expect(await bad.locator('.mono.small').first().textContent()).toBe('6');
    expect(await bad.locator('.tag.bad').textContent()).toMatch(/^schema: \/params\/update\/content.*txt/);
    expect(await page.getByText('8 frames · 1 failed the schema').count()).toBe(1);
    // In the page: the test's tsconfig has no DOM types.
    type Win = { getComputedStyle(e: unknown): { backgroundColor: string } };
    const bg = await bad.evaluate((el) => (globalThis as unknown as Win).getComputedStyle(el).backgroundColor);
    const plain = await frames
      .first()
      .evaluate((el) => (globalThis as unknown as Win).getComputedStyle(el).backgroundColor);
    expect(bg).not.toBe(plain);
    await shot(page, 'inspector-schema-problem');
    expect(w.errors).toEqual([]);
  });
});
