import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { historyFixture } from '../../bench/web-ui.js';
import { shot } from './browser.js';
import { webSuite, type World } from './helpers.js';

const ENTRIES = 10_000;

/** Where the thread is scrolled, and which rows are in the DOM (the list is virtualized: rows carry their entry index). */
const VIEW = `(() => {
  const el = document.querySelector('[data-testid=thread]');
  const rows = [...el.querySelectorAll('[data-index]')].map((r) => Number(r.getAttribute('data-index')));
  return { top: el.scrollTop, max: el.scrollHeight - el.clientHeight, rows, first: Math.min(...rows), last: Math.max(...rows) };
})()`;

interface View {
  top: number;
  max: number;
  rows: number[];
  first: number;
  last: number;
}

/** Whether the text is on screen inside the thread's box (not merely in the DOM). */
const inView = (page: Page, text: string): Promise<boolean> =>
  page.evaluate(`(() => {
    const el = document.querySelector('[data-testid=thread]');
    const box = el.getBoundingClientRect();
    const hit = [...el.querySelectorAll('[data-index]')].find((r) => r.textContent.includes(${JSON.stringify(text)}));
    if (!hit) return false;
    const r = hit.getBoundingClientRect();
    return r.bottom > box.top && r.top < box.bottom;
  })()`);

/** "A 10,000-entry thread scrolls smoothly (virtualized)": opened at its end, scrolled to its start and middle, never more than a screenful of rows in the page. */
describe('web: a 10,000-entry thread', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('long-thread', {}, (x, p) => ((w = x), (page = p)));

  it('opens at its last entry, reaches the first and the middle by scrolling, with only the rows in view in the page', async () => {
    const { session } = await w.api.api.importSession({
      body: {
        text: historyFixture(ENTRIES, w.served.project),
        provider: 'demo',
        cwd: w.served.project,
        title: 'Long history',
      },
    });
    await page.goto(`${w.served.origin}/#/s/${encodeURIComponent(session.id)}`);
    const last = `Step **${ENTRIES / 2 - 1}**`.replace(/\*/g, '');
    // Opened at the end: the last answer is on screen (the store holds every entry; the page draws a few).
    await expect.poll(() => inView(page, last), { timeout: 60_000 }).toBe(true);
    const end = (await page.evaluate(VIEW)) as View;
    expect(end.last).toBe(ENTRIES - 1);
    expect(end.rows.length).toBeLessThan(60);
    expect(end.max - end.top).toBeLessThan(80);
    await shot(page, 'long-thread-end');

    // To the start, as a reader does: a turn of the wheel up (the thread stops following its end),
    // then the scrollbar dragged to the top. The first question is there, and the rows are the first ones.
    const box = (await page.getByTestId('thread').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.wheel(0, -300);
    await page.evaluate(`document.querySelector('[data-testid=thread]').scrollTop = 0`);
    await expect.poll(() => inView(page, 'Question 0: what does step 0 do?'), { timeout: 30_000 }).toBe(true);
    const start = (await page.evaluate(VIEW)) as View;
    expect(start.first).toBe(0);
    expect(start.rows.length).toBeLessThan(60);
    await shot(page, 'long-thread-start');

    // To the middle: rows around the middle, in order, and still only a screenful of them.
    await page.evaluate(
      `(() => { const el = document.querySelector('[data-testid=thread]'); el.scrollTop = (el.scrollHeight - el.clientHeight) / 2; })()`,
    );
    await expect
      .poll(async () => ((await page.evaluate(VIEW)) as View).first, { timeout: 30_000 })
      .toBeGreaterThan(ENTRIES / 4);
    const mid = (await page.evaluate(VIEW)) as View;
    expect(mid.last).toBeLessThan((ENTRIES * 3) / 4);
    expect(mid.rows.length).toBeLessThan(60);
    expect(mid.rows).toEqual([...mid.rows].sort((a, b) => a - b));
    // A question a few rows below the first drawn one (the rows above the view are overscan).
    const q = Math.ceil((mid.first + 8) / 2);
    await expect.poll(() => inView(page, `Question ${q}: what does step ${q} do?`), { timeout: 30_000 }).toBe(true);
    await shot(page, 'long-thread-middle');
    expect(w.errors).toEqual([]);
  });
});
