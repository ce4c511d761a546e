/**
 * "The waiting session continues" (issue 13), in Chromium against a real `talaria serve` whose
 * agent wants a sign-in (test/fakes/bin/auth-agent.ts, real ACP over pipes): a new session the
 * agent refuses shows the sign-in (terminal methods listed too) and, once signed in, is created
 * by itself; a prompt refused later (the key gone) shows it again and is sent again by itself,
 * and the turn answers.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shot } from './browser.js';
import { openPage, openProject, send, world, type World } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const AGENT = fileURLToPath(new URL('../fakes/bin/auth-agent.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'talaria-web-continue-'));
const key = join(dir, 'waitfake.json');
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('web: the waiting action continues after a sign-in', { timeout: 150_000 }, () => {
  let w: World;
  let page: Page;
  beforeAll(async () => {
    w = await world({
      config: { agents: { waitfake: { command: process.execPath, args: [...nodeArgs(AGENT), '--config', key] } } },
    });
    page = await openPage(w);
    await openProject(page, w.served.project);
  }, 150_000);
  afterAll(async () => w?.stop());
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await shot(page, `FAIL-continue-${ctx.task.name.slice(0, 20)}`);
  });

  it('a new session refused for a sign-in: the sign-in, then the session is created by itself and answers', async () => {
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).first().click();
    await page.getByRole('menuitem', { name: /waitfake/ }).click();
    const dialog = page.getByRole('dialog', { name: /^Sign in to waitfake/ });
    await dialog.waitFor({ timeout: 60_000 });
    expect(await dialog.textContent()).toContain('no key configured');
    // The terminal methods are offered too (the list a sign-in gets).
    await dialog.getByText('Set up a key', { exact: true }).waitFor({ timeout: 30_000 });
    expect(page.url()).not.toMatch(/#\/s\//);
    await shot(page, 'continue-new-session-sign-in');
    await dialog.getByRole('button', { name: /with Use the built-in token/ }).click();
    // No second click: the session is created once the agent is ready.
    await page.waitForURL(/#\/s\//, { timeout: 60_000 });
    expect(await dialog.count()).toBe(0);
    expect(existsSync(key)).toBe(true);
    await send(page, 'hello after signing in');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 60_000 })
      .toContain('Signed in; hello from auth-fake.');
    expect(w.errors).toEqual([]);
  });

  it('a prompt refused for a sign-in: the sign-in, then the same text and image are sent again and the turn answers', async () => {
    rmSync(key);
    await page
      .locator('input[type=file][aria-label="Image file"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'dot.png' }).waitFor();
    await send(page, 'keep this text');
    const dialog = page.getByRole('dialog', { name: /^Sign in to waitfake/ });
    await dialog.waitFor({ timeout: 60_000 });
    expect(await dialog.textContent()).toContain('your message continues by itself');
    await shot(page, 'continue-prompt-sign-in');
    await dialog.getByRole('button', { name: /with Use the built-in token/ }).click();
    await expect.poll(() => page.locator('.msg.agent').count(), { timeout: 60_000 }).toBe(2);
    expect(await dialog.count()).toBe(0);
    const users = await page.locator('.msg.user').allTextContents();
    expect(users.filter((t) => t.includes('keep this text')).length).toBe(2);
    // The image went again with the text.
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('Signed in; hello from auth-fake. (1 image)');
    await shot(page, 'continue-prompt-answered');
    expect(w.errors).toEqual([]);
  });
});
