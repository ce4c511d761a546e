import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations, goHash } from './axe.js';
import { newSessionWith, send, webSuite } from './helpers.js';
import { darkToo, shotBoth } from './sizes.js';

/**
 * Issue 38 item 1 in the web UI: a Hermes session's cost as Hermes records it (its state.db; the
 * emulator writes the real 0.18.2 schema, priced here at $3/$15 per million tokens) in the header's
 * context tooltip, and a Usage page totalling every session — a session with no price says so,
 * never $0.
 */
describe('web: cost in the header and the Usage page', { timeout: 120_000 }, () => {
  let page: Page;
  webSuite(
    'usage-page',
    { hermes: true, config: { defaultProvider: 'demo', agents: { hermes: { env: { HERMES_EMU_PRICE: '3,15' } } } } },
    (_w, p) => (page = p),
  );

  const tip = () => page.locator('.session-header .ctx-tip');

  it("a Hermes session's header shows Hermes' own estimate; the Usage page totals it beside a demo session without price", async () => {
    await newSessionWith(page, /Hermes/);
    await send(page, 'hello');
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    // One model call: (1200 × $3 + 34 × $15) / 1M = $0.00411, an estimate.
    await expect
      .poll(async () => (await tip().textContent()) ?? '', { timeout: 30_000 })
      .toContain("Cost ~$0.0041 (Hermes' record)");

    await newSessionWith(page, /Demo/);
    await send(page, 'hello');
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    await expect.poll(async () => (await tip().textContent()) ?? '', { timeout: 30_000 }).toContain('Cost no price');

    await goHash(page, '#/usage');
    const table = page.locator('.usage-table').first();
    await table.waitFor();
    const rows = async () =>
      table
        .locator('tbody tr')
        .evaluateAll((trs) =>
          trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent?.trim() ?? '')),
        );
    await expect.poll(rows).toEqual(
      expect.arrayContaining([
        ['hermes', '1', '1,200', '34', '1,234', '~$0.0041'],
        ['demo', '1', expect.any(String), expect.any(String), expect.any(String), 'no price'],
      ]),
    );
    expect(await table.locator('tfoot').textContent()).toContain('~$0.0041 + 1 without price');
    expect(await page.locator('.usage-page').textContent()).not.toMatch(/\$0\.00(?!4)/);
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'usage-page');
    expect(await darkToo(page, 'usage-page', axeViolations)).toEqual([]);

    // By day: one row, today (UTC).
    await page.locator('.usage-by label', { hasText: 'Day (UTC)' }).click();
    expect(await page.getByRole('radio', { name: 'Day (UTC)' }).isChecked()).toBe(true);
    await expect.poll(async () => (await rows()).map((r) => r[0])).toEqual([new Date().toISOString().slice(0, 10)]);
  });
});
