import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, send, webSuite, type World } from './helpers.js';

/** A tool card shows its kind as an icon (one drawing per kind) and the locations the call names. */
describe("web: a tool card's kind icon and locations", { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('tool-kind', {}, (x, p) => ((w = x), (page = p)));

  it('a read shows the read icon and the file it read; a command shows another icon', async () => {
    writeFileSync(join(w.served.project, 'notes.txt'), 'first line\nsecond line\n');
    await newSession(page);
    await send(page, 'read notes.txt');
    const read = page.locator('.tool-card', { hasText: 'notes.txt' }).last();
    await expect.poll(() => read.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    expect(await read.getAttribute('data-kind')).toBe('read');
    // The card is one line until opened (issue 37 "Craft"): open it to see what it read.
    const toggle = read.locator('.tool-toggle');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    await toggle.click();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    const readIcon = read.locator('.tool-head svg.kind-icon');
    expect(await readIcon.isVisible()).toBe(true);
    const readPath = await readIcon.locator('path').getAttribute('d');
    // The open-book drawing (kind-icon.tsx's `read`), not the fallback cog.
    expect(readPath).toMatch(/^M2 3h5/);
    const locations = read.locator('ul.locations li');
    expect(await locations.count()).toBe(1);
    expect(await locations.first().textContent()).toBe(join(w.served.project, 'notes.txt'));
    expect(await locations.first().isVisible()).toBe(true);
    // The file's text keeps its line break (it was shown as "first line second line").
    expect(await read.locator('.tool-body').innerText()).toContain('first line\nsecond line');
    const box = await read.locator('.tool-body :text("first line")').last().boundingBox();
    expect(box?.height).toBeGreaterThan(25); // two rendered lines, not one
    // And the agent counts two lines, not three.
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('I read notes.txt: 2 lines.');
    await shot(page, 'tool-kind-read');

    await send(page, 'run echo hi');
    const approval = page.getByRole('region', { name: /^Approval needed/ });
    await approval.waitFor({ timeout: 30_000 });
    await approval.getByRole('button', { name: /^Allow once/ }).click();
    const run = page.locator('.tool-card[data-kind="execute"]').last();
    await expect.poll(() => run.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    const runPath = await run.locator('.tool-head svg.kind-icon path').getAttribute('d');
    expect(runPath).toMatch(/^M2\.5 3\.5l5 4\.5/);
    expect(runPath).not.toBe(readPath);
    await shot(page, 'tool-kind-execute');
    expect(w.errors).toEqual([]);
  });
});
