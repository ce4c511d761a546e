import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';
import { nodeCommand } from '../prebuilt.js';

const SDK_AGENT = fileURLToPath(new URL('../fakes/sdk-agent.ts', import.meta.url));

/** The session header on a fresh session, the context meter and cost, sidebar search and archive, notifications, "Check again". */
describe('web: header, sidebar, notifications, readiness', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  // An agent whose command does not exist yet: not ready until the test writes it.
  const later = join(mkdtempSync(join(tmpdir(), 'talaria-later-')), 'bin');
  const laterCmd = join(later, 'later-agent');
  mkdirSync(later, { recursive: true });
  webSuite(
    'header',
    {
      hermes: true,
      config: {
        defaultProvider: 'demo',
        agents: {
          paid: { ...sdkAgent({ SDK_AGENT_COST: '0.0125' }), label: 'Paid agent' },
          later: { command: laterCmd, args: [], label: 'Later agent' },
        },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const snapshot = async (id: string) => (await w.api.api.snapshot({ params: { id } })).snapshot;
  const currentId = (): string => decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);

  it('a fresh session: mode, model and even the agent can be changed; after the first message the agent is fixed', async () => {
    const first = await newSession(page);
    await page.getByRole('combobox', { name: 'Mode', exact: true }).selectOption('auto');
    await expect.poll(async () => (await snapshot(first)).session.modeId).toBe('auto');
    await page.getByRole('combobox', { name: 'Model', exact: true }).selectOption('demo-thorough');
    await expect.poll(async () => (await snapshot(first)).session.modelId).toBe('demo-thorough');
    await shot(page, 'fresh-session-pickers');

    // The agent: the empty session is replaced by a Hermes one, and leaves no row behind.
    await page.getByRole('combobox', { name: 'Agent', exact: true }).selectOption('hermes');
    await expect.poll(() => currentId(), { timeout: 30_000 }).not.toBe(first);
    const second = currentId();
    await expect
      .poll(async () => page.locator('.session-header .pill').getAttribute('class'), { timeout: 30_000 })
      .toContain('pill-amber');
    expect((await snapshot(second)).session.provider).toBe('hermes');
    await expect.poll(async () => (await snapshot(first)).session.archived).toBe(true);
    expect(await page.locator(`[data-session="${first}"]`).count()).toBe(0);
    await page.getByLabel('Archived').check();
    expect(await page.locator(`[data-session="${first}"]`).count()).toBe(0);
    await page.getByLabel('Archived').uncheck();

    await send(page, 'hello hermes');
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    await expect.poll(() => page.getByRole('combobox', { name: 'Agent', exact: true }).count()).toBe(0);
    await shot(page, 'agent-fixed-after-message');
    expect(w.errors).toEqual([]);
  });

  it('header: the context meter, tokens per turn and per session, and the cost the agent reports', async () => {
    const before = page.url();
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    await page.getByRole('menuitem', { name: /Paid agent/ }).click();
    await page.waitForURL((u) => /#\/s\//.test(u.href) && u.href !== before);
    await page.getByLabel('Message to the agent').waitFor();
    const id = currentId();
    await send(page, 'one');
    await expect
      .poll(() => page.locator('.session-header').textContent(), { timeout: 30_000 })
      .toMatch(/Cost 0\.0125 USD/);
    await send(page, 'two');
    await expect
      .poll(() => page.locator('.session-header').textContent(), { timeout: 30_000 })
      .toMatch(/Cost 0\.0250 USD/);
    // The fake reports 11 tokens a turn; the session sums them. The cost comes with the turn's last
    // usage_update, the tokens with its end (the prompt's answer): the header may draw them apart.
    await expect
      .poll(() => page.locator('.session-header').textContent(), { timeout: 30_000 })
      .toMatch(/Tokens 11 turn · 22 session/);
    const header = (await page.locator('.session-header').textContent()) ?? '';
    const snap = await snapshot(id);
    const ctx = snap.thread.context as { used?: number; size?: number };
    expect(ctx.size).toBe(1000);
    const meter = page.getByRole('meter', { name: 'Context used' });
    expect(Number(await meter.getAttribute('aria-valuenow'))).toBe(Math.round(((ctx.used ?? 0) / 1000) * 100));
    expect(header).toContain(`${ctx.used}/1.0k`);
    await shot(page, 'header-meter-cost');
  });

  it('sidebar: search by title, and archived sessions behind the filter', async () => {
    await newSession(page);
    await send(page, 'zebra crossing');
    const zebra = currentId();
    await expect
      .poll(() => page.locator(`[data-session="${zebra}"]`).textContent(), { timeout: 30_000 })
      .toContain('zebra');
    await newSession(page);
    await send(page, 'yellow submarine');
    const yellow = currentId();
    await expect
      .poll(() => page.locator(`[data-session="${yellow}"]`).textContent(), { timeout: 30_000 })
      .toContain('yellow');

    const search = page.getByLabel('Search sessions by title');
    await search.fill('zebra');
    await expect.poll(() => page.locator(`[data-session="${yellow}"]`).count()).toBe(0);
    expect(await page.locator(`[data-session="${zebra}"]`).count()).toBe(1);
    await shot(page, 'sidebar-search');
    await search.fill('');

    await page.goto(`${w.served.origin}/#/s/${encodeURIComponent(zebra)}`);
    // The session's actions are in the header's ⋯ menu.
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: 'Archive', exact: true }).click();
    await expect.poll(() => page.locator(`[data-session="${zebra}"]`).count()).toBe(0);
    await page.getByLabel('Archived').check();
    await page.locator(`[data-session="${zebra}"]`).waitFor();
    expect(await page.locator(`[data-session="${yellow}"]`).count()).toBe(0);
    // Search works inside the archive too.
    await search.fill('yellow');
    await expect.poll(() => page.locator(`[data-session="${zebra}"]`).count()).toBe(0);
    await search.fill('');
    await page.getByLabel('Archived').uncheck();
    await page.locator(`[data-session="${yellow}"]`).waitFor();
  });

  it('a hidden tab gets a browser notification when an approval is needed', async () => {
    const ctx = await w.browser.newContext({ viewport: { width: 1280, height: 820 } });
    await ctx.grantPermissions(['notifications'], { origin: w.served.origin });
    // The tab is in the background; every notification the page raises is recorded.
    // (A script string: this file is typed for Node, the code runs in the page.)
    await ctx.addInitScript({
      content: `
        Object.defineProperty(document, 'hidden', { configurable: true, get: () => true });
        const Real = window.Notification;
        const seen = (window.__notes = []);
        class Recorded extends Real {
          constructor(title, o) { super(title, o); seen.push({ title, body: o && o.body }); }
        }
        Object.defineProperty(window, 'Notification', { configurable: true, value: Recorded });`,
    });
    const bg = await openPage(w, { context: ctx });
    await openProject(bg, w.served.project);
    await newSession(bg);
    await send(bg, 'edit notes.txt');
    await bg.getByRole('region', { name: /^Approval needed:/ }).waitFor({ timeout: 30_000 });
    const notes = () => bg.evaluate<{ title: string; body?: string }[]>('window.__notes');
    await expect
      .poll(notes, { timeout: 10_000 })
      .toEqual(
        expect.arrayContaining([
          expect.objectContaining({ title: 'Talaria', body: expect.stringMatching(/approv|permission/i) }),
        ]),
      );
    await ctx.close();
  });

  it('readiness: "Check again" sees an agent that was fixed meanwhile', async () => {
    await page.goto(`${w.served.origin}/#/readiness?provider=later`);
    const item = page.locator('#provider-later');
    await expect.poll(() => item.textContent(), { timeout: 30_000 }).toMatch(/not ready/);
    await shot(page, 'readiness-later-missing');
    writeFileSync(laterCmd, `#!/bin/sh\nexec ${nodeCommand(SDK_AGENT)} "$@"\n`);
    chmodSync(laterCmd, 0o755);
    await page.getByRole('button', { name: 'Check again' }).click();
    await item.locator('h3 .ok').waitFor({ timeout: 30_000 });
    expect(await item.locator('h3').textContent()).not.toMatch(/not ready/);
    expect(await item.locator('.gaps li').count()).toBe(0);
    await shot(page, 'readiness-later-fixed');
    expect(w.errors).toEqual([]);
  });
});
