import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { newSession, send, serverText, webSuite, type World } from './helpers.js';

const CHUNKS = 60;
const agentText = (page: Page) => page.locator('.msg.agent').last().textContent();

/** A running turn: cancel with Esc, a visible queue, a refresh in the middle, the model picker. */
describe('web: streaming turns', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  let id: string;
  webSuite(
    'stream',
    { env: { TALARIA_DEMO_SLOW_DELAY_MS: '100', TALARIA_DEMO_SLOW_CHUNKS: String(CHUNKS) } },
    (x, p) => ((w = x), (page = p)),
  );
  beforeAll(async () => {
    id = await newSession(page);
  });

  it('cancel: Esc stops the turn, what streamed stays, and the text being typed stays in the box', async () => {
    await send(page, 'slow');
    await expect.poll(() => agentText(page), { timeout: 20_000 }).toContain('Chunk 3 of');
    const box = page.getByLabel('Message to the agent');
    await box.fill('half a thought');
    await box.press('Escape');
    await page.locator('.turn-end', { hasText: 'Turn ended: cancelled' }).waitFor({ timeout: 20_000 });
    // Screen readers hear the turn's end (a status region), not every streamed word.
    await expect
      .poll(() => page.locator('.sr-only[role=status]').textContent(), { timeout: 20_000 })
      .toBe('Turn ended: cancelled');
    expect(await agentText(page)).toContain('Chunk 1 of');
    expect(await agentText(page)).not.toContain(`Chunk ${CHUNKS} of`);
    expect(await box.inputValue()).toBe('half a thought');
    await shot(page, 'cancel');
    await box.fill('');
  });

  it('queue: a prompt sent during a turn is shown queued, can be removed, and the next one runs after', async () => {
    // The turn waits on an approval, so the queue is looked at while it surely runs.
    writeFileSync(join(w.served.project, 'q.txt'), 'q\n');
    await send(page, 'edit q.txt');
    const card = page.getByRole('region', { name: /^Approval needed: Edit q\.txt/ });
    await card.waitFor({ timeout: 20_000 });
    await send(page, 'drop me');
    const queue = page.getByRole('list', { name: 'Queued prompts' });
    await expect.poll(() => queue.textContent(), { timeout: 10_000 }).toContain('drop me');
    await send(page, 'keep me');
    await expect.poll(() => queue.textContent()).toContain('keep me');
    await shot(page, 'queue');
    await page.getByRole('button', { name: 'Remove queued prompt: drop me' }).click();
    await expect.poll(() => queue.textContent()).not.toContain('drop me');
    await card.getByRole('button', { name: /^Allow once/ }).click();
    // The turn ends, the kept prompt runs, the removed one never does.
    await expect.poll(() => agentText(page), { timeout: 30_000 }).toContain('You said: "keep me"');
    const held = await serverText(w.api, id);
    expect(held.filter((t) => t === 'user_message:keep me')).toHaveLength(1);
    expect(held.some((t) => t.includes('drop me'))).toBe(false);
    expect(await page.getByRole('list', { name: 'Queued prompts' }).count()).toBe(0);
  });

  it('refresh mid-stream: the page comes back and the turn finishes with nothing missing or doubled', async () => {
    await send(page, 'slow');
    await expect.poll(() => agentText(page), { timeout: 20_000 }).toContain('Chunk 5 of');
    await page.reload();
    // The turn ends at the server; then the page must show exactly what the server holds.
    await expect
      .poll(async () => (await w.api.api.snapshot({ params: { id } })).snapshot.turnId, { timeout: 30_000 })
      .toBeUndefined();
    const { snapshot } = await w.api.api.snapshot({ params: { id } });
    const held = snapshot.thread.entries
      .filter((e) => (e as { kind?: string }).kind === 'assistant_message')
      .at(-2) as { id: string; text: string };
    expect(held.text).toContain(`Chunk ${CHUNKS} of ${CHUNKS}`);
    const row = page.locator(`[data-entry="${held.id}"] .msg.agent`);
    await expect.poll(() => row.textContent(), { timeout: 10_000 }).toContain(`Chunk ${CHUNKS} of ${CHUNKS}`);
    const text = (await row.textContent())!;
    for (let i = 1; i <= CHUNKS; i++) expect(text.split(`Chunk ${i} of ${CHUNKS} `).length - 1, `chunk ${i}`).toBe(1);
    expect(text.trim()).toBe(`Agent: ${held.text}`.trim());
    // The reloaded page follows the stream to its end: the turn's last line is in view.
    const inView = `(() => {
      const t = document.querySelector('[data-testid="thread"]');
      const el = [...t.querySelectorAll('.msg.agent p')].find((p) => p.textContent.includes('Done: nothing was cancelled'));
      if (!el) return false;
      const r = el.getBoundingClientRect();
      const v = t.getBoundingClientRect();
      return r.top >= v.top && r.bottom <= v.bottom + 1;
    })()`;
    await expect.poll(() => page.evaluate<boolean>(inView), { timeout: 10_000 }).toBe(true);
    await shot(page, 'refresh-mid-stream');
  });

  it('model switch: the picker lists the models, the choice applies and the next reply uses it', async () => {
    const picker = page.getByRole('combobox', { name: 'Model' });
    await expect
      .poll(() => picker.locator('option').allTextContents())
      .toEqual(expect.arrayContaining([expect.stringMatching(/thorough/i)]));
    const thorough = await picker.locator('option', { hasText: /thorough/i }).getAttribute('value');
    await picker.selectOption(thorough!);
    await expect
      .poll(async () => (await w.api.api.snapshot({ params: { id } })).snapshot.session.modelId)
      .toBe(thorough);
    await send(page, 'which model');
    await expect.poll(() => agentText(page), { timeout: 20_000 }).toContain(`model: ${thorough}`);
    expect(await picker.inputValue()).toBe(thorough);
    await shot(page, 'model-switch');
    expect(w.errors).toEqual([]);
  });
});
