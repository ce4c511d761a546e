import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { shot } from './browser.js';
import { webSuite, type World } from './helpers.js';

/**
 * Issue 38 item 6 in the web UI: a Hermes config trap `talaria doctor` reports (here
 * `provider: ollama-cloud` with no OLLAMA_API_KEY in the profile's .env, which under ACP falls
 * back to another provider) is on the Agents page too — Hermes under "Needs configuration", the
 * line of config.yaml, and the fix with its command to copy. Fixed, it is ready again.
 */
describe('web: Hermes config traps on the Agents page', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('hermes-traps', { hermes: true, config: { defaultProvider: 'demo' } }, (x, p) => ((w = x), (page = p)));

  const config = (text: string) => writeFileSync(join(w.served.home, 'hermes', 'config.yaml'), text);
  const hermes = () => page.locator('#provider-hermes');
  const checkAgain = async () => {
    await page.getByRole('button', { name: 'Check again' }).click();
    await expect.poll(() => hermes().getAttribute('data-group'), { timeout: 30_000 }).not.toBe('checking');
  };

  it('ollama-cloud without its key: "Needs configuration" with the line and the fix; fixed, ready again', async () => {
    await page.goto(`${w.served.origin}/#/readiness`);
    await page.getByRole('heading', { name: 'Agents and readiness' }).waitFor();
    await expect.poll(() => hermes().getAttribute('data-group'), { timeout: 30_000 }).toBe('ready');

    config('model:\n  provider: ollama-cloud\n  default: gpt-oss:120b\n');
    await checkAgain();
    await expect.poll(() => hermes().getAttribute('data-group'), { timeout: 30_000 }).toBe('configure');
    const text = (await hermes().textContent()) ?? '';
    expect(text).toContain('config.yaml line 2');
    expect(text).toMatch(/provider: ollama-cloud takes its key only from OLLAMA_API_KEY/);
    expect(text).toContain('OLLAMA_API_KEY=');
    // Config lines are code, not commands: no Copy button beside them.
    expect(
      await hermes()
        .getByRole('button', { name: /^Copy the command provider:/ })
        .count(),
    ).toBe(0);
    // Calm text, not a wall of red; and the page stays axe-clean.
    expect(await hermes().locator('.error, .bad').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await hermes().scrollIntoViewIfNeeded();
    await shot(page, 'hermes-config-trap');

    config('model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n');
    await checkAgain();
    await expect.poll(() => hermes().getAttribute('data-group'), { timeout: 30_000 }).toBe('ready');
    expect(w.errors).toEqual([]);
  });
});
