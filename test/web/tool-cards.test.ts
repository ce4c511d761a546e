import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { shot, PHONE } from './browser.js';
import { axeViolations } from './axe.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';

/**
 * Issue 37 "Craft", the thread's tool cards: one line (kind icon, title, status, duration) that
 * opens on click (a real button with aria-expanded); a read shows its first lines and "Show all";
 * a command's output is cut past 20 lines; the arguments are inside the open card only; a card
 * waiting for approval, failed or holding a diff is open from the start; Markdown output
 * (Hermes' "- **output:** …") reads as Markdown.
 */
describe('web: tool cards collapse to one line', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('tool-cards', {}, (x, p) => ((w = x), (page = p)));

  const toggle = (card: Locator): Locator => card.locator('.tool-toggle');
  async function approve(p: Page): Promise<void> {
    const card = p.getByRole('region', { name: /^Approval needed/ });
    await card.waitFor({ timeout: 30_000 });
    await card.getByRole('button', { name: /^Allow once/ }).click();
  }

  it('1440×900: a read is one line, opens to its first lines and "Show all"; arguments only inside', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    writeFileSync(
      join(w.served.project, 'long.txt'),
      Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
    );
    await newSession(page);
    await send(page, 'read long.txt');
    const card = page.locator('.tool-card[data-kind=read]').last();
    await expect.poll(() => card.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    // One line: icon, title, status (and a duration, this page saw it run).
    expect(await toggle(card).getAttribute('aria-expanded')).toBe('false');
    expect((await card.boundingBox())!.height).toBeLessThanOrEqual(44);
    expect(await card.locator('.tool-head svg.kind-icon').isVisible()).toBe(true);
    expect(await card.locator('.tool-body').count()).toBe(0);
    expect(await card.getByRole('button', { name: 'Show arguments' }).count()).toBe(0);
    expect(await axeViolations(page), 'collapsed card').toEqual([]);
    await shot(page, 'tool-cards-collapsed');
    // Opened: the first 12 lines and "Show all 40 lines"; the arguments are in there.
    await toggle(card).click();
    expect(await toggle(card).getAttribute('aria-expanded')).toBe('true');
    const file = card.locator('pre.tool-file');
    expect(await file.textContent()).toContain('line 12');
    expect(await file.textContent()).not.toContain('line 13');
    await card.getByRole('button', { name: 'Show all 40 lines' }).click();
    expect(await file.textContent()).toContain('line 40');
    await card.getByRole('button', { name: 'Show arguments' }).click();
    expect(await card.locator('pre.json').textContent()).toContain('long.txt');
    expect(await axeViolations(page), 'open card').toEqual([]);
    await shot(page, 'tool-cards-read-open');
    // And shut again by its one line.
    await toggle(card).click();
    expect(await card.locator('.tool-body').count()).toBe(0);
    expect(w.errors).toEqual([]);
  });

  it('a command waiting for approval is open; its long output is cut to 20 lines with "Show all 60 lines"', async () => {
    await send(page, 'run seq 1 60');
    await page.getByRole('region', { name: /^Approval needed/ }).waitFor({ timeout: 30_000 });
    const card = page.locator('.tool-card[data-kind=execute]').last();
    // A person sees what they approve: the card is open while it waits.
    expect(await toggle(card).getAttribute('aria-expanded')).toBe('true');
    await expect.poll(() => card.locator('.perm-line').textContent()).toMatch(/Waiting for your approval/);
    expect(await axeViolations(page), 'approval').toEqual([]);
    await shot(page, 'tool-cards-approval');
    await approve(page);
    await expect.poll(() => card.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    // Its one line says how long it ran (this page saw it start).
    expect(await card.locator('.tool-took').textContent()).toMatch(/^\d+(\.\d)?s$|^\d+m \d+s$/);
    // Still open after the answer (it opened for the approval); the output cut at 20 lines.
    expect(await toggle(card).getAttribute('aria-expanded')).toBe('true');
    const term = card.locator('pre.terminal');
    await expect.poll(() => term.textContent()).toMatch(/^1\n2\n/);
    expect((await term.textContent())!.trim().split('\n')).toHaveLength(20);
    await card.getByRole('button', { name: 'Show all 60 lines' }).click();
    expect((await term.textContent())!.trim().split('\n')).toHaveLength(60);
    await shot(page, 'tool-cards-command');
    // A reloaded page never saw it run, and still says how long it ran: the session kept the times.
    await page.reload();
    const again = page.locator('.tool-card[data-kind=execute]').last();
    await expect
      .poll(() => again.locator('.tool-took').textContent(), { timeout: 30_000 })
      .toMatch(/^\d+(\.\d)?s$|^\d+m \d+s$/);
  });

  it('Markdown output reads as Markdown; a failed command and an edit with its diff are open from the start', async () => {
    await send(page, "run printf '%s\\n' 'terminal result' '- **output:** hello-md' '- **exit_code:** 0'");
    await approve(page);
    const md = page.locator('.tool-card[data-kind=execute]').last();
    await expect.poll(() => md.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    await expect.poll(() => md.locator('.tool-body .md strong').first().textContent()).toBe('output:');
    expect(await md.locator('.tool-body').textContent()).toContain('hello-md');
    expect(await md.locator('.tool-body pre.terminal').count()).toBe(0);
    expect(await md.locator('.tool-body').textContent()).not.toContain('**');
    await shot(page, 'tool-cards-markdown');

    await send(page, 'run false');
    await approve(page);
    const failed = page.locator('.tool-card[data-kind=execute]').last();
    await expect.poll(() => failed.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('failed');
    expect(await toggle(failed).getAttribute('aria-expanded')).toBe('true');

    writeFileSync(join(w.served.project, 'cards.txt'), 'one\n');
    await send(page, 'edit cards.txt');
    await approve(page);
    const edit = page.locator('.tool-card', { hasText: 'Edit cards.txt' }).last();
    await expect.poll(() => edit.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    expect(await toggle(edit).getAttribute('aria-expanded')).toBe('true');
    expect(await edit.getByRole('figure', { name: /^Changes to .*cards\.txt/ }).isVisible()).toBe(true);
    expect(await axeViolations(page), 'failed and diff cards').toEqual([]);
    await shot(page, 'tool-cards-failed-diff');
    expect(w.errors).toEqual([]);
  });

  it('390×844: a collapsed card is one line on a phone and opens by tap', async () => {
    const ctx = await w.browser.newContext(PHONE);
    const p = await openPage(w, { context: ctx });
    await p.getByRole('button', { name: 'Sessions' }).tap();
    await openProject(p, w.served.project);
    await newSession(p);
    await send(p, 'read long.txt');
    const card = p.locator('.tool-card[data-kind=read]').last();
    await expect.poll(() => card.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    const box = (await card.boundingBox())!;
    expect(box.height).toBeLessThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await shot(p, 'tool-cards-phone');
    await toggle(card).tap();
    await card.getByRole('button', { name: 'Show all 40 lines' }).waitFor();
    expect(await axeViolations(p), 'phone').toEqual([]);
    await shot(p, 'tool-cards-phone-open');
    await ctx.close();
  });
});
