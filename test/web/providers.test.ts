import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { send, webSuite, type World, newSessionWith } from './helpers.js';
import { sdkAgent } from './serve.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==',
  'base64',
);

/** Several agents: the split button's menu, "fix…" to the readiness panel, Hermes with highlighted code, images gated by the agent. */
describe('web: agents, readiness, code, images', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'providers',
    {
      hermes: true,
      config: {
        defaultProvider: 'demo',
        agents: { noimg: { ...sdkAgent({ SDK_AGENT_NO_IMAGE: '1' }), name: 'No-image agent' } },
      },
    },
    (x, p) => ((w = x), (page = p)),
  );

  const startWith = async (label: RegExp): Promise<void> => void (await newSessionWith(page, label));

  it('the menu lists every agent; one that is not ready is disabled with "fix…", which opens the readiness panel', async () => {
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).click();
    const menu = page.getByRole('menu');
    await menu.waitFor();
    expect(await menu.getByRole('menuitem', { name: /Hermes/i }).isEnabled()).toBe(true);
    // Readiness arrives behind the page (the doctor's checks): then the agents that cannot start are disabled.
    const disabled = menu.locator('button[role=menuitem]:disabled');
    await expect.poll(() => disabled.count(), { timeout: 30_000 }).toBeGreaterThan(0);
    await shot(page, 'agents-menu');
    const fix = menu.getByRole('link', { name: 'fix…' }).first();
    await fix.click();
    await page.getByRole('heading', { name: 'Agents and readiness' }).waitFor();
    const focused = page.locator('.ready-item.focus');
    await focused.waitFor({ timeout: 30_000 });
    expect(await focused.textContent()).toMatch(/not ready/);
    expect(await focused.locator('.gaps li').count()).toBeGreaterThan(0);
    await shot(page, 'readiness');
  });

  it('Hermes (amber pill): a fenced code block in the reply is highlighted', async () => {
    await startWith(/Hermes/i);
    expect(await page.locator('.session-header .pill').getAttribute('class')).toContain('pill-amber');
    await send(
      page,
      'show me\n```ts\nconst answer: number = 42;\nexport function twice(n: number) { return n * 2; }\n```',
    );
    const code = page.locator('.msg.agent .code-block code.hljs').last();
    await code.waitFor({ timeout: 30_000 });
    await expect.poll(() => code.locator('span.hljs-keyword').count()).toBeGreaterThan(1);
    expect(await code.textContent()).toContain('const answer: number = 42;');
    await shot(page, 'hermes-code');
  });

  it('image gated: an agent that does not take images shows a note and attaches nothing', async () => {
    await startWith(/noimg/i);
    await page
      .locator('input[type=file][aria-label="Image file"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByText('This agent does not take images: dot.png not attached.').waitFor();
    expect(await page.getByRole('list', { name: 'Attached images' }).count()).toBe(0);
    await shot(page, 'image-gated');
  });

  it('an agent that takes images gets the attached image', async () => {
    await startWith(/Demo/i);
    await page
      .locator('input[type=file][aria-label="Image file"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'dot.png' }).waitFor();
    await send(page, 'look at this');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 20_000 })
      .toContain('I received 1 image');
    expect(w.errors).toEqual([]);
  });
});
