import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launch } from '../web/browser.js';
import {
  describeLongTasks,
  OBSERVE,
  OPEN_WINDOW,
  READ_WINDOW,
  type Loaf,
  type LongTask,
} from '../../bench/web-observe.js';

/**
 * A task of the page that keeps its main thread busy for `ms`, then `after` (an expression) run in
 * the very next task: before the observer has been handed the long task's entry.
 */
const busyThen = (ms: number, after: string) =>
  `new Promise((done) => { setTimeout(() => { const t = performance.now(); while (performance.now() - t < ${ms}); }, 0); setTimeout(() => done((0, eval)(${JSON.stringify(after)})), 0); })`;

/** The web bench's long-task window (issue 11's row): what it counts, in a real Chromium page. */
describe('bench: the web page long-task window', { timeout: 60_000 }, () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launch();
    const ctx = await browser.newContext();
    await ctx.addInitScript(OBSERVE);
    page = await ctx.newPage();
    await page.goto('data:text/html,<p>page</p>');
  }, 60_000);
  afterAll(async () => browser?.close());

  it('counts a long task inside the window even when read right after it, and none from before the window', async () => {
    // Before the window: a long task, the window opened in the next task (its entry reaches the observer after that).
    await page.evaluate(busyThen(120, OPEN_WINDOW));
    // Inside: the window read in the next task (its entry not handed to the observer yet: takeRecords gets it).
    const seen = await page.evaluate<{ from: number; tasks: LongTask[]; loafs: Loaf[] }>(busyThen(80, READ_WINDOW));
    expect(seen.tasks).toHaveLength(1);
    expect(seen.tasks[0]!.duration).toBeGreaterThanOrEqual(80);
    expect(seen.tasks[0]!.start).toBeGreaterThanOrEqual(seen.from);
    // Its note says when it was and how long.
    const notes = describeLongTasks(seen.from, seen.tasks, seen.loafs);
    expect(notes).toHaveLength(1);
    expect(notes[0]).toMatch(/^web\.ui long task at \+\d+ ms: \d+ ms — /);
  });
});
