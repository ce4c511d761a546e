import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Page } from 'playwright-core';
import { connectServer, type WebSocketCtor } from '../../src/server/client/index.js';
import { shot } from './browser.js';
import { newSession, send, webSuite, type World, newSessionWith } from './helpers.js';
import { sdkAgent } from './serve.js';

// An agent started through a link to node: removing the link later opens a readiness gap (not found).
const LINKS = mkdtempSync(join(tmpdir(), 'talaria-web-gone-'));
const NODE_LINK = join(LINKS, 'node');
symlinkSync(process.execPath, NODE_LINK);
// Another such link for an agent that crashes once its link is gone: it cannot be restarted.
const BRITTLE = mkdtempSync(join(tmpdir(), 'talaria-web-brittle-'));
const BRITTLE_NODE = join(BRITTLE, 'node');
symlinkSync(process.execPath, BRITTLE_NODE);

/**
 * The sidebar row's status dot (running, then idle; failed, and why; agent not ready) and its
 * last-activity and preview text. The header's dot says the same for the open session.
 */
describe('web: the status dot and last activity of a sidebar row', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'status-dot',
    {
      config: {
        defaultProvider: 'demo',
        agents: {
          gone: { ...sdkAgent(), command: NODE_LINK, label: 'Vanishing agent' },
          brittle: { ...sdkAgent(), command: BRITTLE_NODE, label: 'Brittle agent' },
        },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const dot = (id: string) => page.locator(`[data-session="${id}"] .dot`);

  const startWith = (label: RegExp): Promise<string> => newSessionWith(page, label);

  it('running during a slow turn, idle after it; the row shows the last activity and a preview', async () => {
    const id = await newSession(page);
    await send(page, 'slow');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 20_000 }).toBe('running');
    expect(await dot(id).getAttribute('class')).toContain('dot-running');
    await shot(page, 'status-dot-running');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('idle');
    const row = page.locator(`[data-session="${id}"]`);
    expect(await row.locator('.session-line2 .muted').textContent()).toBe('just now');
    await expect.poll(() => row.locator('.session-preview').textContent(), { timeout: 10_000 }).toMatch(/\S/);
    await shot(page, 'status-dot-idle');
  });

  it('failed, with the error as the reason, when the last turn ended with an error; idle again once the next turn starts', async () => {
    const id = await newSession(page);
    await send(page, 'fail');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
    expect(await dot(id).getAttribute('class')).toContain('dot-failed');
    expect(await dot(id).getAttribute('title')).toMatch(/last turn ended with an error — .*Demo failure/);
    const head = page.locator('.session-header .dot');
    await expect.poll(() => head.getAttribute('aria-label'), { timeout: 10_000 }).toBe('failed');
    expect(await head.getAttribute('title')).toMatch(/Demo failure/);
    const row = (await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id);
    expect(row?.failure).toMatchObject({ cause: 'turn' });
    await shot(page, 'status-dot-failed-turn');
    await send(page, 'hello');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('idle');
    // The header follows the session's own stream, the row the list's: either may draw first.
    await expect.poll(() => head.getAttribute('aria-label'), { timeout: 10_000 }).toBe('idle');
    expect((await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id)?.failure).toBeUndefined();
  });

  it('failed, saying the agent stopped, when the agent crashes and cannot be restarted', async () => {
    const id = await startWith(/Brittle agent/);
    await send(page, 'hello');
    await page.locator('.msg.agent').last().waitFor({ timeout: 30_000 });
    rmSync(BRITTLE, { recursive: true, force: true });
    await send(page, 'crash');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
    await expect.poll(() => dot(id).getAttribute('title'), { timeout: 30_000 }).toMatch(/the agent stopped/i);
    // The header's dot draws from the same event as the row's, maybe a frame later: polled too (it read
    // `running` once, issue 35).
    await expect
      .poll(() => page.locator('.session-header .dot').getAttribute('aria-label'), { timeout: 10_000 })
      .toBe('failed');
    expect((await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id)?.failure?.cause).toBe(
      'agent',
    );
    await shot(page, 'status-dot-failed-agent');
    // The next prompt cannot restart it (its command is gone): still failed, still the agent.
    await send(page, 'hello again');
    await expect
      .poll(
        async () => (await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id)?.failure?.message,
        { timeout: 30_000 },
      )
      .not.toMatch(/simulated crash/);
    // The store has the new failure; the row draws it from the next event, a frame later maybe.
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 10_000 }).toBe('failed');
    await expect.poll(() => dot(id).getAttribute('title'), { timeout: 10_000 }).toMatch(/the agent stopped/i);
    await shot(page, 'status-dot-failed-agent-again');
  });

  it('agent not ready when its agent has a readiness gap', async () => {
    const id = await startWith(/Vanishing agent/);
    await send(page, 'hello');
    await page.locator('.msg.agent').last().waitFor({ timeout: 30_000 });
    expect(await dot(id).getAttribute('aria-label')).not.toBe('agent not ready');
    rmSync(LINKS, { recursive: true, force: true });
    // The server re-checks (as the readiness page's "Check again" does); the page reads it on load.
    const { providers } = await w.api.api.readiness({ query: { refresh: 'true' } });
    expect(providers.find((p) => p.id === 'gone')?.ready).toBe(false);
    await page.reload();
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('agent not ready');
    expect(await dot(id).getAttribute('class')).toContain('dot-not-ready');
    // The header's dot for the same session says the same (it stayed green before).
    const head = page.locator('.session-header .dot');
    await expect.poll(() => head.getAttribute('aria-label'), { timeout: 10_000 }).toBe('agent not ready');
    expect(await head.getAttribute('class')).toContain('dot-not-ready');
    await shot(page, 'status-dot-not-ready');
    expect(w.errors).toEqual([]);
  });

  it('still failed, with the error, after the server restarts; idle again once the next turn starts', async () => {
    const id = await newSession(page);
    await send(page, 'fail');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
    await w.served.restart();
    w.api = connectServer(w.served.origin, w.served.token, { WebSocket: WebSocket as unknown as WebSocketCtor });
    // The new server's link (a new port), then the session: the row and the header say failed and why.
    await page.goto(w.served.url);
    await page.locator(`[data-session="${id}"]`).click();
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
    expect(await dot(id).getAttribute('title')).toMatch(/last turn ended with an error — .*Demo failure/);
    const head = page.locator('.session-header .dot');
    await expect.poll(() => head.getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
    await shot(page, 'status-dot-failed-after-restart');
    const row = (await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id);
    expect(row?.failure).toEqual({ cause: 'turn', message: expect.stringMatching(/Demo failure/) });
    await send(page, 'hello');
    await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('idle');
    // The header follows the session's own stream, the row the list's: either may draw first.
    await expect.poll(() => head.getAttribute('aria-label'), { timeout: 10_000 }).toBe('idle');
    expect(w.errors).toEqual([]);
  });
});
