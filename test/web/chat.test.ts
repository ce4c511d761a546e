import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, openProject, send, serverText, webSuite, type World } from './helpers.js';

/** The core path in Chromium: sidebar, new session, a streamed markdown reply, approve and reject with a diff. */
describe('web: chat and approvals', { timeout: 60_000 }, () => {
  let w: World;
  let page: Page;
  let id: string;
  webSuite('chat', {}, (x, p) => ((w = x), (page = p)));

  it('new session from the split button: the sidebar lists it with its provider pill and status dot', async () => {
    await openProject(page, w.served.project);
    id = await newSession(page);
    const item = page.locator(`[data-session="${id}"]`);
    await item.waitFor();
    expect(await item.locator('.pill').textContent()).toMatch(/demo/i);
    expect(await item.locator('.dot').getAttribute('aria-label')).toBe('idle');
    // The menu half lists the providers; the demo agent is there and marked default.
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    await expect.poll(() => page.getByRole('menu').textContent()).toMatch(/default/);
    await shot(page, 'new-session-menu');
    await page.keyboard.press('Escape');
  });

  it('stream: the reply streams in as markdown (list, inline code) and the sidebar gets its title and preview', async () => {
    await send(page, 'hello **there**');
    const agent = page.locator('.msg.agent').last();
    await expect.poll(() => agent.textContent(), { timeout: 20_000 }).toContain('`fail` or `refuse`'.replace(/`/g, ''));
    // Markdown rendered: list items with inline code, not raw asterisks or backticks.
    expect(await agent.locator('li code.inline-code').count()).toBeGreaterThan(3);
    expect(await agent.textContent()).not.toContain('`tour`');
    // The thought is collapsed behind a button.
    await page
      .getByRole('button', { name: /Thinking/ })
      .first()
      .waitFor();
    // What the page shows is what the server holds.
    const held = await serverText(w.api, id);
    expect(held.filter((t) => t.startsWith('assistant_message')).length).toBe(1);
    expect(await agent.textContent()).toContain('Hi! I am the Talaria demo agent');
    await expect.poll(() => page.locator(`[data-session="${id}"] .session-preview`).textContent()).toBeTruthy();
    await shot(page, 'stream');
  });

  it('approve with diff: the card, the dialog with the diff and arguments, allow once; the tool card settles', async () => {
    writeFileSync(join(w.served.project, 'greet.txt'), 'hello\n');
    await send(page, 'edit greet.txt');
    const card = page.getByRole('region', { name: /^Approval needed: Edit greet\.txt/ });
    await card.waitFor({ timeout: 20_000 });
    // The session shows a badge, and the tab title says an approval waits.
    await expect.poll(() => page.title()).toMatch(/^\(1\) Talaria/);
    await expect
      .poll(() => page.locator(`[data-session="${id}"] .dot`).getAttribute('aria-label'))
      .toBe('needs approval');
    await shot(page, 'approve-card');
    await page.keyboard.press('d');
    const dialog = page.getByRole('dialog');
    await dialog.waitFor();
    expect(await dialog.locator('.diff-table tr.add').first().textContent()).toContain(
      'Edited by the Talaria demo agent.',
    );
    expect(await dialog.locator('pre.json').textContent()).toContain('greet.txt');
    // The split layout draws the same change side by side.
    await dialog.getByRole('button', { name: 'Split' }).click();
    expect(await dialog.locator('.diff-table.split td.add').first().textContent()).toContain(
      'Edited by the Talaria demo agent.',
    );
    await shot(page, 'approve-dialog');
    await dialog.getByRole('button', { name: /^Allow once/ }).click();
    const tool = page.locator('.tool-card', { hasText: 'Edit greet.txt' }).last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 20_000 }).toBe('done');
    await expect.poll(() => tool.locator('.perm-line').textContent()).toMatch(/^Allowed/);
    expect(readFileSync(join(w.served.project, 'greet.txt'), 'utf8')).toContain('Edited by the Talaria demo agent.');
    await expect.poll(() => page.title()).toBe('Talaria');
    await shot(page, 'approve-done');
  });

  it('always, with the rule edited in the dialog: the edited rule is kept and the next matching edit does not ask', async () => {
    writeFileSync(join(w.served.project, 'a.md'), 'a\n');
    writeFileSync(join(w.served.project, 'b.md'), 'b\n');
    await send(page, 'edit a.md');
    await page.getByRole('region', { name: /^Approval needed: Edit a\.md/ }).waitFor({ timeout: 20_000 });
    await page.keyboard.press('d');
    const dialog = page.getByRole('dialog');
    const glob = dialog.getByLabel('Path glob');
    expect(await glob.inputValue()).toBe(join(w.served.project, 'a.md'));
    await glob.fill(join(w.served.project, '*.md'));
    await shot(page, 'always-rule');
    await dialog.getByRole('button', { name: /^Always allow/ }).click();
    await expect
      .poll(() => page.locator('.tool-card', { hasText: 'Edit a.md' }).last().locator('.tool-status').textContent(), {
        timeout: 20_000,
      })
      .toBe('done');
    const { rules } = await w.api.api.rules({ query: { scope: 'session', scopeId: id } });
    expect(rules.map((r) => r.rule.pathGlob)).toContain(join(w.served.project, '*.md'));
    await send(page, 'edit b.md');
    await expect
      .poll(() => page.locator('.tool-card', { hasText: 'Edit b.md' }).last().locator('.tool-status').textContent(), {
        timeout: 20_000,
      })
      .toBe('done');
    expect(await page.getByRole('region', { name: /^Approval needed/ }).count()).toBe(0);
  });

  it('reject: the file is left alone and the card says rejected', async () => {
    writeFileSync(join(w.served.project, 'keep.txt'), 'keep me\n');
    await send(page, 'edit keep.txt');
    const card = page.getByRole('region', { name: /^Approval needed: Edit keep\.txt/ });
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: /^Reject/ }).click();
    const tool = page.locator('.tool-card', { hasText: 'Edit keep.txt' }).last();
    await expect.poll(() => tool.locator('.perm-line').textContent(), { timeout: 20_000 }).toMatch(/^Rejected/);
    await expect.poll(() => tool.locator('.tool-status').textContent()).toBe('failed');
    expect(readFileSync(join(w.served.project, 'keep.txt'), 'utf8')).toBe('keep me\n');
    await shot(page, 'reject');
    expect(w.errors).toEqual([]);
  });
});
