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
  let hermesId = '';

  it("a Hermes session's header shows Hermes' own estimate; the Usage page totals it beside a demo session without price", async () => {
    hermesId = await newSessionWith(page, /Hermes/);
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

  it('a turn whose start and end reach the page together still brings its cost', async () => {
    // The page's socket messages are held, then handed over in one task: React renders the turn's
    // start and end at once, and the page never sees it running (what a busy machine does).
    await page.addInitScript(`(() => {
      const gate = { held: false, queue: [] };
      window.wsGate = gate;
      window.wsRelease = () => {
        gate.held = false;
        for (const [fn, ws, ev] of gate.queue.splice(0)) fn.call(ws, ev);
      };
      const add = WebSocket.prototype.addEventListener;
      WebSocket.prototype.addEventListener = function (type, fn, o) {
        if (type !== 'message' || typeof fn !== 'function') return add.call(this, type, fn, o);
        const ws = this;
        return add.call(this, type, (ev) => (gate.held ? gate.queue.push([fn, ws, ev]) : fn.call(ws, ev)), o);
      };
    })()`);
    await goHash(page, `#/s/${hermesId}`);
    await page.reload();
    await expect.poll(async () => (await tip().textContent()) ?? '', { timeout: 30_000 }).toContain('~$0.0041');
    await page.evaluate('window.wsGate.held = true');
    await send(page, 'again');
    // Held until the turn's end is among them.
    await expect
      .poll(
        () =>
          page.evaluate(`window.wsGate.queue.some(([, , ev]) =>
            (typeof ev.data === 'string' ? ev.data : new TextDecoder().decode(ev.data)).includes('"turn.ended"'))`),
        { timeout: 30_000 },
      )
      .toBe(true);
    await page.evaluate('window.wsRelease()');
    // Two model calls now: 2 × $0.00411.
    await expect.poll(async () => (await tip().textContent()) ?? '', { timeout: 30_000 }).toContain('~$0.0082');
  });
});
