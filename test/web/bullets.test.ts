import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, openPage, send, webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

/** The plan checklist, the tool card's diff layout, two tabs on one session, the send key, the workspace's default agent. */
describe('web: plan, diff layout, two tabs, send key, default agent', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  // A chunk delay so a turn lasts long enough to be seen mid-way (each plan step, the other tab).
  webSuite(
    'bullets',
    { chunkDelayMs: 80, config: { defaultProvider: 'demo', agents: { fake: { ...sdkAgent(), label: 'Fake agent' } } } },
    (x, p) => ((w = x), (page = p)),
  );

  it('the plan is one checklist whose items change status in place (pending → in progress → done)', async () => {
    await newSession(page);
    // Every status each item showed, in order, and whether the checklist element was ever replaced.
    // (A string: the test's tsconfig has no DOM types.)
    await page.evaluate(`
      window.__plan = { seen: {}, nodes: new Set() };
      const read = () => {
        for (const el of document.querySelectorAll('.plan')) window.__plan.nodes.add(el);
        for (const box of document.querySelectorAll('.plan li input[type=checkbox]')) {
          const [item, status] = (box.getAttribute('aria-label') ?? '').split(': ');
          const list = (window.__plan.seen[item] ??= []);
          if (list.at(-1) !== status) list.push(status);
        }
      };
      new MutationObserver(read).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label'] });
    `);
    await send(page, 'plan');
    const plan = page.locator('.plan');
    await expect.poll(() => plan.locator('summary').textContent(), { timeout: 20_000 }).toMatch(/3\/3 done/);
    expect(await plan.count()).toBe(1);
    expect(await plan.locator('li input:checked').count()).toBe(3);
    const seen = await page.evaluate<{ seen: Record<string, string[]>; nodes: number }>(
      '({ seen: window.__plan.seen, nodes: window.__plan.nodes.size })',
    );
    expect(seen.nodes).toBe(1);
    // The first item goes in progress right after the plan is sent: the page may render the plan,
    // that and its completion at once (seen under load in CI), but never out of order or twice.
    const first = seen.seen['Read the request'] ?? [];
    expect(first.at(-1)).toBe('completed');
    expect(['pending', 'in progress', 'completed'].filter((st) => first.includes(st))).toEqual(first);
    for (const item of ['Sketch an answer', 'Write the reply'])
      expect(seen.seen[item], item).toEqual(['pending', 'in progress', 'completed']);
    await shot(page, 'plan-checklist');
  });

  it("a tool card's diff switches between unified and split and back", async () => {
    writeFileSync(join(w.served.project, 'layout.txt'), 'one\ntwo\n');
    await send(page, 'edit layout.txt');
    const card = page.getByRole('region', { name: /^Approval needed: Edit layout\.txt/ });
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: /^Allow once/ }).click();
    const tool = page.locator('.tool-card', { hasText: 'Edit layout.txt' }).last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 20_000 }).toBe('done');
    const diff = tool.getByRole('figure', { name: /^Changes to .*layout\.txt/ });
    await diff.waitFor();
    const layout = diff.getByRole('group', { name: 'Diff layout' });
    expect(await layout.getByRole('button', { name: 'Unified' }).getAttribute('aria-pressed')).toBe('true');
    expect(await diff.locator('.diff-table:not(.split)').count()).toBeGreaterThan(0);
    await layout.getByRole('button', { name: 'Split' }).click();
    await diff.locator('.diff-table.split').first().waitFor();
    expect(await layout.getByRole('button', { name: 'Split' }).getAttribute('aria-pressed')).toBe('true');
    // Two halves: the new side starts in the middle of the card (the split button's `.split` style
    // once made this table inline-flex, squeezed to the left).
    const added = await diff.locator('.diff-table.split td.add').first().boundingBox();
    const body = await diff.locator('.diff-body').boundingBox();
    expect(added!.x).toBeGreaterThan(body!.x + body!.width * 0.45);
    // Side by side: the added line is on the right, with the old line on its left in the same row.
    const row = diff.locator('.diff-table.split tr', { has: page.locator('td.add') }).first();
    expect(await row.locator('td.add').textContent()).toContain('Edited by the Talaria demo agent.');
    await shot(page, 'diff-split');
    await layout.getByRole('button', { name: 'Unified' }).click();
    await expect.poll(() => diff.locator('.diff-table.split').count()).toBe(0);
    expect(await diff.locator('.diff-table tr.add').first().textContent()).toContain(
      'Edited by the Talaria demo agent.',
    );
  });

  it('two tabs on one session: a prompt sent in tab A streams into tab B as it runs', async () => {
    const id = await newSession(page);
    const other = await openPage(w, { context: page.context() });
    await other.locator(`[data-session="${id}"]`).click();
    await other.getByLabel('Message to the agent').waitFor();
    // Tab B records what it showed while the turn ran: the reply's first step before its last.
    await other.evaluate(`
      window.__mid = false;
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid=thread]')?.textContent ?? '';
        if (t.includes('Step 1: read the request.') && !t.includes('it was a demo plan.')) window.__mid = true;
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    `);
    expect(await other.locator('.msg.agent', { hasText: 'Step 1' }).count()).toBe(0);
    await send(page, 'plan');
    await expect
      .poll(() => other.locator('.msg.agent').last().textContent(), { timeout: 20_000 })
      .toContain('it was a demo plan.');
    expect(await other.evaluate<boolean>('window.__mid')).toBe(true);
    // Both tabs end with the same thread.
    const aText = await page.locator('.msg.agent').allTextContents();
    await expect.poll(() => other.locator('.msg.agent').allTextContents()).toEqual(aText);
    expect(await other.locator('.msg.user').last().textContent()).toContain('plan');
    await shot(other, 'two-tabs-b');
    await other.close();
  });

  it("the workspace's default agent: set on the readiness page, used by the split button's main half, kept on reload", async () => {
    await page.goto(`${w.served.origin}/#/readiness`);
    const pick = page.getByLabel(/^Default agent for /);
    await pick.selectOption('fake');
    const main = page.getByRole('button', { name: /^New session with/ }).first();
    await expect.poll(() => main.getAttribute('aria-label')).toBe('New session with Fake agent');
    const id = await newSession(page);
    await expect.poll(() => page.locator(`[data-session="${id}"] .pill`).textContent()).toMatch(/fake/i);
    await page.reload();
    await expect
      .poll(() =>
        page
          .getByRole('button', { name: /^New session with/ })
          .first()
          .getAttribute('aria-label'),
      )
      .toBe('New session with Fake agent');
    await shot(page, 'default-agent');
  });

  it('send key: Ctrl+Enter chosen, Enter makes a new line, Ctrl+Enter sends; the choice survives a reload', async () => {
    const box = page.getByLabel('Message to the agent');
    await page.getByLabel('Send with').selectOption('ctrl-enter');
    const users = page.locator('.msg.user');
    const n = await users.count();
    await box.fill('first line');
    await box.press('Enter');
    await box.pressSequentially('second line');
    expect(await box.inputValue()).toBe('first line\nsecond line');
    expect(await users.count()).toBe(n);
    await box.press('Control+Enter');
    await expect.poll(() => users.count()).toBe(n + 1);
    await expect.poll(() => box.inputValue()).toBe('');
    // The reply ends before the reload (a queued prompt would not be a message yet).
    await page.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 30_000 });
    await page.reload();
    await page.getByLabel('Message to the agent').waitFor();
    expect(await page.getByLabel('Send with').inputValue()).toBe('ctrl-enter');
    const box2 = page.getByLabel('Message to the agent');
    await box2.fill('after reload');
    await box2.press('Enter');
    expect(await box2.inputValue()).toBe('after reload\n');
    await shot(page, 'send-key-ctrl-enter');
    // And back to Enter: Enter sends again.
    await page.getByLabel('Send with').selectOption('enter');
    await box2.fill('with enter');
    const m = await page.locator('.msg.user').count();
    await box2.press('Enter');
    await expect.poll(() => page.locator('.msg.user').count()).toBe(m + 1);
  });
});
