import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { webSuite, type World } from './helpers.js';

/** The Settings rule form: cleared after a rule is added; kept, with the error shown, when the add fails. */
describe('web: the permission rule form in settings', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('rule-form', {}, (x, p) => ((w = x), (page = p)));

  const values = () =>
    Promise.all(
      ['Tool kind', 'Path glob', 'Command pattern'].map((l) => page.getByLabel(l, { exact: true }).inputValue()),
    );

  it('a successful add clears the form', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByLabel('Decision').selectOption('deny');
    await page.getByLabel('Tool kind').fill('execute');
    await page.getByLabel('Path glob').fill('src/**');
    await page.getByLabel('Command pattern').fill('rm');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.locator('tr', { hasText: 'src/**' }).waitFor({ timeout: 10_000 });
    expect((await w.api.api.rules({ query: { scope: 'global' } })).rules).toHaveLength(1);
    await expect.poll(values, { timeout: 10_000 }).toEqual(['', '', '']);
    expect(await page.getByLabel('Decision').inputValue()).toBe('allow');
    expect(await page.getByRole('alert').count()).toBe(0);
    await shot(page, 'rule-form-cleared');
  });

  it('a failed add keeps the values and shows the error', async () => {
    // Workspace scope with no workspace chosen: the server refuses it.
    await page.getByLabel('Scope').selectOption('workspace');
    await page.getByLabel('Decision').selectOption('deny');
    await page.getByLabel('Tool kind').fill('edit');
    await page.getByLabel('Path glob').fill('secret/**');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await page.getByRole('alert').waitFor({ timeout: 10_000 });
    expect(await page.getByRole('alert').textContent()).toMatch(/\S/);
    expect(await values()).toEqual(['edit', 'secret/**', '']);
    expect(await page.getByLabel('Decision').inputValue()).toBe('deny');
    expect(await page.getByLabel('Scope').inputValue()).toBe('workspace');
    expect((await w.api.api.rules({ query: { scope: 'global' } })).rules).toHaveLength(1);
    await shot(page, 'rule-form-failed');
  });
});
