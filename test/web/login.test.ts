/**
 * Sign-in from the readiness page (issue 13), in Chromium against a real `talaria serve` whose
 * agents are the fake that wants a sign-in (test/fakes/bin/auth-agent.ts, real ACP over pipes):
 * the gap lists the methods; a terminal method opens the xterm.js panel on the server's pty, the
 * key typed there signs in, the gap goes without a reload and a session then answers a turn. A
 * failed terminal sign-in shows why and a retry; an agent method the agent refuses shows why.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { shot } from './browser.js';
import { newSession, openPage, openProject, send, world, type World } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

const AGENT = fileURLToPath(new URL('../fakes/bin/auth-agent.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'talaria-web-login-'));
const fake = (name: string) => ({
  name,
  command: process.execPath,
  args: [...nodeArgs(AGENT), '--config', join(dir, `${name}.json`)],
});

/** What the xterm panel shows (its DOM renderer's rows). */
const screen = (page: Page, agent: string) => page.locator(`#provider-${agent} .xterm-rows`).textContent();

describe('web: sign-in from the readiness page', { timeout: 150_000 }, () => {
  let w: World;
  let page: Page;
  beforeAll(async () => {
    w = await world({
      config: { defaultProvider: 'authfake', agents: { authfake: fake('authfake'), authfake2: fake('authfake2') } },
    });
    // Each agent refuses a session first: that is what makes the gap (as a person would meet it).
    const { workspace } = await w.api.api.openWorkspace({ body: { path: w.served.project } });
    for (const provider of ['authfake', 'authfake2'])
      await expect(w.api.api.createSession({ params: { id: workspace.id }, body: { provider } })).rejects.toThrow(
        /sign-in|auth/i,
      );
    page = await openPage(w);
    await openProject(page, w.served.project);
    await page.goto(`${w.served.origin}/#/readiness`);
  }, 150_000);
  afterAll(async () => w?.stop());
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await shot(page, `FAIL-login-${ctx.task.name.slice(0, 20)}`);
  });

  it('the gap lists the methods; the terminal panel runs the setup, the typed key signs in, the gap goes without a reload; then a session answers', async () => {
    const item = page.locator('#provider-authfake');
    await item.getByText('not ready').waitFor({ timeout: 60_000 });
    const methods = item.getByRole('list', { name: 'Sign-in methods of authfake' });
    // The gap's own list lacks the terminal methods (an everyday session does not offer terminal auth): the page asks as a sign-in does.
    await expect
      .poll(() => methods.textContent(), { timeout: 60_000 })
      .toMatch(/Use the built-in token.*Set up a key \(terminal\)/s);

    await item.getByRole('button', { name: 'Sign in to authfake with Set up a key', exact: true }).click();
    const panel = item.getByRole('region', { name: 'Sign in to authfake' });
    await panel.waitFor();
    await expect.poll(() => screen(page, 'authfake'), { timeout: 60_000 }).toContain('Enter your API key:');
    await panel.getByTestId('sign-in-terminal').click();
    await page.keyboard.type('sk-from-the-browser');
    await shot(page, 'login-terminal-typed');
    await page.keyboard.press('Enter');
    await panel.getByRole('status').filter({ hasText: 'Signed in: authfake is ready.' }).waitFor({ timeout: 60_000 });
    expect(await screen(page, 'authfake')).toContain('Saved a key of 19 characters.');
    // The gap is gone from the page, without a reload.
    await expect.poll(() => item.locator('.gaps').count()).toBe(0);
    expect(await item.locator('h3').textContent()).toMatch(/ready/);
    expect(await item.locator('h3').textContent()).not.toMatch(/not ready/);
    await shot(page, 'login-terminal-done');

    await newSession(page);
    await send(page, 'hello after signing in');
    const agent = page.locator('.msg.agent').last();
    await agent.getByText('Signed in; hello from auth-fake.').waitFor({ timeout: 60_000 });
    expect(w.errors).toEqual([]);
  });

  it('a failed terminal sign-in shows why and a retry that works; an agent method the agent refuses shows its reason', async () => {
    await page.goto(`${w.served.origin}/#/readiness`);
    const item = page.locator('#provider-authfake2');
    await item.getByText('not ready').waitFor({ timeout: 60_000 });

    await expect.poll(() => item.getByRole('button', { name: /terminal-auth/ }).count(), { timeout: 60_000 }).toBe(1);
    await item.getByRole('button', { name: 'Sign in to authfake2 with Use an expired token' }).click();
    const refused = item.getByRole('alert').filter({ hasText: 'Not signed in' });
    await refused.waitFor({ timeout: 60_000 });
    expect(await refused.textContent()).toContain('token expired on 2026-01-01');

    await item.getByRole('button', { name: 'Sign in to authfake2 with Set up a key (terminal-auth)' }).click();
    const panel = item.getByRole('region', { name: 'Sign in to authfake2' });
    await expect.poll(() => screen(page, 'authfake2'), { timeout: 60_000 }).toContain('Enter your API key:');
    await panel.getByTestId('sign-in-terminal').click();
    await page.keyboard.press('Enter');
    const failed = panel.getByRole('alert');
    await failed.waitFor({ timeout: 60_000 });
    expect(await failed.textContent()).toMatch(/Not signed in: .*no key configured/);
    await shot(page, 'login-terminal-failed');

    await failed.getByRole('button', { name: 'Retry' }).click();
    await expect.poll(() => screen(page, 'authfake2'), { timeout: 60_000 }).toContain('Enter your API key:');
    await panel.getByTestId('sign-in-terminal').click();
    await page.keyboard.type('k2');
    await page.keyboard.press('Enter');
    await panel.getByRole('status').filter({ hasText: 'Signed in: authfake2 is ready.' }).waitFor({ timeout: 60_000 });
    await expect.poll(() => item.locator('.gaps').count()).toBe(0);
    expect(w.errors).toEqual([]);
  });
});
