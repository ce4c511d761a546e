import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { newSession, newSessionWith, send, webSuite, type World } from './helpers.js';
import { darkToo, shotBoth } from './sizes.js';

/**
 * Issue 37, first run: an empty session shows what to try. The demo agent's prompts (a click
 * sends one); a real agent's slash commands (a click puts the command in the message box).
 * Nothing once the session has a message.
 */
describe('web: what to try in an empty session', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('first-run', { hermes: true, config: { defaultProvider: 'demo' } }, (x, p) => ((w = x), (page = p)));

  const panel = () => page.getByRole('region', { name: /^Try the demo agent$|^What .* can do$/ });
  const box = () => page.getByLabel('Message to the agent');

  it('the demo agent: its prompts as buttons; a click sends one, and the suggestions go', async () => {
    await newSession(page);
    await panel().waitFor();
    expect(await panel().getByRole('heading').textContent()).toBe('Try the demo agent');
    const prompts = await panel()
      .locator('[data-prompt]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-prompt')));
    expect(prompts).toEqual(['tour', 'plan', 'slow', 'edit notes.md', 'run ls']);
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'first-run-demo');
    expect(await darkToo(page, 'first-run-demo', axeViolations)).toEqual([]);

    await panel()
      .getByRole('button', { name: /^plan / })
      .click();
    await page.locator('.msg.user', { hasText: 'plan' }).waitFor({ timeout: 20_000 });
    // The demo's plan script, not its default reply to unknown words.
    await page.locator('.plan').first().waitFor({ timeout: 20_000 });
    expect(await panel().count()).toBe(0);
    // A reload: still nothing to suggest (the session has its message).
    await page.reload();
    await page.locator('.msg.user', { hasText: 'plan' }).waitFor({ timeout: 20_000 });
    expect(await panel().count()).toBe(0);
  });

  it('a real agent (Hermes): its slash commands as buttons; a click puts the command in the box; typing and sending hides them', async () => {
    await newSessionWith(page, /Hermes/);
    await panel().waitFor({ timeout: 30_000 });
    expect(await panel().getByRole('heading').textContent()).toMatch(/^What Hermes.* can do$/);
    const commands = await panel()
      .locator('[data-command]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-command')));
    expect(commands).toEqual(expect.arrayContaining(['help', 'model', 'tools', 'compact']));
    // A command's input hint is shown with it.
    expect(await panel().locator('[data-command="model"]').textContent()).toMatch(
      /^\/model.*then: model name to switch to$/,
    );
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'first-run-commands');

    await panel().locator('[data-command="tools"]').click();
    await expect.poll(() => box().inputValue()).toBe('/tools ');
    // The box has the focus: the person goes on typing where the command ends.
    await page.keyboard.type('please');
    expect(await box().inputValue()).toBe('/tools please');
    await box().fill('/help');
    await box().press('Enter');
    await page.locator('.msg.user', { hasText: '/help' }).waitFor({ timeout: 20_000 });
    await expect.poll(() => panel().count()).toBe(0);
    await page.locator('.msg.agent').last().waitFor({ timeout: 30_000 });
    expect(await panel().count()).toBe(0);
    expect(w.errors).toEqual([]);
  });

  it('an observer sees no suggestions (it cannot send)', async () => {
    const id = await newSession(page);
    await panel().waitFor();
    const token = w.served.addToken('observer', 'watcher');
    const ctx = await w.browser.newContext({ viewport: { width: 1280, height: 820 } });
    const watcher = await ctx.newPage();
    await watcher.goto(`${w.served.origin}/#token=${token}`);
    await watcher.locator(`[data-session="${id}"]`).click();
    await watcher.getByText('Read-only: this link can watch, not prompt.').waitFor({ timeout: 20_000 });
    expect(await watcher.getByRole('region', { name: 'Try the demo agent' }).count()).toBe(0);
    await ctx.close();
    await send(page, 'hello');
    await expect.poll(() => panel().count(), { timeout: 20_000 }).toBe(0);
  });
});
