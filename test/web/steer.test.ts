import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, openPage, openProject, send, serverText, world, type World } from './helpers.js';

/** "Steer now" (issue 14) from the composer: a queued prompt or the typed text goes into the running turn. */
describe('web: steer now', { timeout: 120_000 }, () => {
  let w: World | undefined;
  let page: Page | undefined;
  afterAll(async () => w?.stop());
  afterEach(async (ctx) => {
    if (page && ctx.task.result?.state === 'fail') await shot(page, `FAIL-steer-${ctx.task.name.slice(0, 20)}`);
  });

  it('a queued prompt, then typed text: each interrupts the running turn (demo: cancel and resend) and the thread says so', async () => {
    w = await world({ env: { TALARIA_DEMO_SLOW_CHUNKS: '2000', TALARIA_DEMO_SLOW_DELAY_MS: '20' } });
    page = await openPage(w);
    await openProject(page, w.served.project);
    const id = await newSession(page);
    const stop = page.getByRole('button', { name: /^Stop/ });

    await send(page, 'slow');
    await stop.waitFor();
    await send(page, 'queued one');
    const queue = page.getByRole('list', { name: 'Queued prompts' });
    await queue.getByText('queued one').waitFor();
    await shot(page, 'steer-queued');
    await page.getByRole('button', { name: 'Steer now with queued prompt: queued one' }).click();
    await page
      .getByText('Interrupted the running turn and resent it with your correction: queued one')
      .waitFor({ timeout: 30_000 });
    await queue.waitFor({ state: 'detached' });

    await send(page, 'slow');
    await expect
      .poll(async () => (await serverText(w!.api, id)).filter((t) => t === 'user_message:slow').length, {
        timeout: 30_000,
      })
      .toBe(2);
    await stop.waitFor();
    await page.getByLabel('Message to the agent').fill('typed correction');
    await page.getByRole('button', { name: 'Steer now', exact: true }).click();
    await page
      .getByText('Interrupted the running turn and resent it with your correction: typed correction')
      .waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('Message to the agent').inputValue()).toBe('');
    await shot(page, 'steer-now');

    // What the server holds: each correction is a user message of its own, after the turn it interrupted.
    const users = (await serverText(w.api, id)).filter((t) => t.startsWith('user_message:'));
    expect(users).toEqual([
      'user_message:slow',
      'user_message:queued one',
      'user_message:slow',
      'user_message:typed correction',
    ]);
    expect(w.errors).toEqual([]);
  });
});
