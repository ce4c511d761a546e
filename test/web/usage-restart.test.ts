import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { connectServer, type WebSocketCtor } from '../../src/server/client/index.js';
import { shot } from './browser.js';
import { newSession, send, webSuite, type World } from './helpers.js';

const TOKENS = /Tokens (\S+) turn · (\S+) session/;

/**
 * Issue 36 item 19: tokens per turn and per session come back after a page reload and after a
 * server restart (from the store's turns), and a tool call a cancel settled stays cancelled after
 * the restart (the agent's replay says failed).
 */
describe('web: usage and cancelled tool calls survive a reload and a restart', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'usage-restart',
    { env: { TALARIA_DEMO_SLOW_DELAY_MS: '100', TALARIA_DEMO_SLOW_CHUNKS: '60' } },
    (x, p) => ((w = x), (page = p)),
  );
  const header = async () => TOKENS.exec((await page.locator('.session-header').textContent()) ?? '')?.slice(1);

  it('keeps the header tokens and the cancelled card', async () => {
    const id = await newSession(page);
    await send(page, 'hello');
    await expect.poll(header, { timeout: 30_000 }).not.toEqual(['–', '–']);
    const first = (await header())!;
    await send(page, 'hello again, a longer message this time');
    await expect.poll(async () => (await header())?.[1], { timeout: 30_000 }).not.toBe(first[1]);
    const [turn, session] = (await header())!;
    expect(Number(session)).toBeGreaterThan(Number(turn));

    await page.reload();
    await page.getByLabel('Message to the agent').waitFor();
    await expect.poll(header, { timeout: 30_000 }).toEqual([turn, session]);

    // A slow turn cancelled mid-way: its tool call ends cancelled (the demo agent records failed).
    await send(page, 'slow');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 20_000 })
      .toContain('Chunk 3 of');
    await page.getByLabel('Message to the agent').press('Escape');
    await page.locator('.turn-end', { hasText: 'Turn ended: cancelled' }).waitFor({ timeout: 20_000 });
    const card = page.locator('.tool-card').last();
    await expect.poll(() => card.getAttribute('class')).toContain('status-cancelled');
    const after = (await header())!;

    await w.served.restart();
    w.api = connectServer(w.served.origin, w.served.token, { WebSocket: WebSocket as unknown as WebSocketCtor });
    await page.goto(w.served.url);
    await page.locator(`[data-session="${id}"]`).click();
    await page.getByLabel('Message to the agent').waitFor();
    await expect.poll(header, { timeout: 30_000 }).toEqual(after);
    await expect.poll(() => card.getAttribute('class'), { timeout: 30_000 }).toContain('status-cancelled');
    // The next message opens it at the agent again (its replay): the card is still the cancelled one.
    await send(page, 'after the restart');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('after the restart');
    expect((await w.api.api.snapshot({ params: { id } })).snapshot.origin).toBe('loaded');
    await expect.poll(() => card.getAttribute('class'), { timeout: 30_000 }).toContain('status-cancelled');
    const { snapshot } = await w.api.api.snapshot({ params: { id } });
    const tools = snapshot.thread.entries.filter((e) => (e as { kind?: string }).kind === 'tool_call') as {
      status: string;
    }[];
    expect(tools.at(-1)!.status).toBe('cancelled');
    await shot(page, 'usage-after-restart');
    expect(w.errors).toEqual([]);
  });
});
