import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, send, webSuite, type World } from './helpers.js';

/** A workspace-scope permission rule added in the settings page applies to that workspace's sessions; the global rules stay as they were. */
describe('web: a workspace permission rule from settings', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('rules-scope', {}, (x, p) => ((w = x), (page = p)));

  it('added for the workspace: an edit there runs without asking; the global rules are unchanged', async () => {
    const globalBefore = (await w.api.api.rules({ query: { scope: 'global' } })).rules;
    const { workspaces } = await w.api.api.workspaces();
    const ws = workspaces[0]!;

    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Scope').selectOption('workspace');
    await page.getByLabel('Workspace', { exact: true }).selectOption(ws.id);
    await page.getByLabel('Decision').selectOption('allow');
    await page.getByLabel('Tool kind').fill('edit');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const row = page.locator('tr', { hasText: `workspace: ${ws.name}` });
    await row.waitFor({ timeout: 10_000 });
    await shot(page, 'rules-scope-added');

    const wsRules = (await w.api.api.rules({ query: { scope: 'workspace', scopeId: ws.id } })).rules;
    expect(wsRules).toHaveLength(1);
    expect((await w.api.api.rules({ query: { scope: 'global' } })).rules).toEqual(globalBefore);

    writeFileSync(join(w.served.project, 'scoped.txt'), 'before\n');
    await newSession(page);
    await send(page, 'edit scoped.txt');
    const tool = page.locator('.tool-card', { hasText: 'Edit scoped.txt' }).last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 30_000 }).toBe('done');
    expect(await page.getByRole('region', { name: /^Approval needed/ }).count()).toBe(0);
    expect(readFileSync(join(w.served.project, 'scoped.txt'), 'utf8')).toContain('Edited by the Talaria demo agent.');
    await shot(page, 'rules-scope-applied');
    expect(w.errors).toEqual([]);
  });
});
