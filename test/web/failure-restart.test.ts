import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { connectServer, type WebSocketCtor } from '../../src/server/client/index.js';
import { axeViolations } from './axe.js';
import { newSession, newSessionWith, send, webSuite, type World } from './helpers.js';
import { darkToo, shotBoth } from './sizes.js';
import { nodeArgs } from '../prebuilt.js';

const CRASH = fileURLToPath(new URL('../fakes/bin/crash-mid-turn.ts', import.meta.url));

/**
 * Issue 37: a failed turn's error is a notice in its thread, stored with the thread, so the page
 * shows the same notice live, after a reload and after the server restarts (the status dot alone
 * said why before).
 */
describe('web: failure notices survive a reload and a restart', { timeout: 180_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'failure-restart',
    {
      config: {
        defaultProvider: 'demo',
        agents: { crashy: { command: process.execPath, args: nodeArgs(CRASH), label: 'Crashy agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const notices = () => page.locator('.notice[data-code="turn_failed"]');
  const dot = (id: string) => page.locator(`[data-session="${id}"] .dot`);
  const reconnect = () =>
    (w.api = connectServer(w.served.origin, w.served.token, { WebSocket: WebSocket as unknown as WebSocketCtor }));

  it('an agent that dies mid-turn, and a turn the demo agent fails: the same notices after a reload and after a restart', async () => {
    const crashed = await newSessionWith(page, /Crashy agent/);
    await send(page, 'hello');
    await notices().waitFor({ timeout: 30_000 });
    const crashText = (await notices().textContent())!;
    expect(crashText).toMatch(/The agent stopped during this turn: agent exited with code 3/);
    expect(await notices().getAttribute('role')).toBe('alert');
    // The status line under the thread does not repeat the agent's stderr the notice shows.
    await expect
      .poll(() => page.locator('.turn-end').textContent())
      .toBe('Turn ended: error — agent exited with code 3');
    // Under the message whose turn failed, after what the agent said before it died.
    await expect
      .poll(() => page.locator('[data-index]').last().locator('.notice').getAttribute('data-code'))
      .toBe('turn_failed');
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'failure-notice-live');

    const failed = await newSession(page);
    await send(page, 'fail');
    await notices().waitFor({ timeout: 30_000 });
    const failText = (await notices().textContent())!;
    expect(failText).toMatch(/The turn failed: Demo failure/);

    await page.reload();
    await notices().waitFor({ timeout: 30_000 });
    expect(await notices().allTextContents()).toEqual([failText]);

    await w.served.restart();
    reconnect();
    await page.goto(w.served.url);
    for (const [id, text] of [
      [crashed, crashText],
      [failed, failText],
    ] as const) {
      await page.locator(`[data-session="${id}"]`).click();
      await expect.poll(() => notices().allTextContents(), { timeout: 30_000 }).toEqual([text]);
      await expect.poll(() => dot(id).getAttribute('aria-label'), { timeout: 30_000 }).toBe('failed');
      const { snapshot } = await w.api.api.snapshot({ params: { id } });
      expect(snapshot.thread.entries.filter((e) => (e as { code?: string }).code === 'turn_failed')).toHaveLength(1);
    }
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'failure-notice-after-restart');
    expect(await darkToo(page, 'failure-notice-after-restart', axeViolations)).toEqual([]);

    // The next turn works and adds no second notice: the old one stays where it happened.
    await send(page, 'hello');
    await expect.poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 }).toMatch(/\S/);
    await expect.poll(() => dot(failed).getAttribute('aria-label'), { timeout: 30_000 }).toBe('idle');
    expect(await notices().count()).toBe(1);
    // The agent replayed the conversation when it reopened it: the notice is still under the failed message, before this one.
    const rowOf = async (l: ReturnType<Page['locator']>) =>
      Number(await l.locator('xpath=ancestor::*[@data-index][1]').getAttribute('data-index'));
    expect(await rowOf(notices())).toBeLessThan(await rowOf(page.locator('.msg.user').last()));
    expect(w.errors).toEqual([]);
  });
});
