import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { ownContrast } from './contrast.js';
import { newSession, openPage, openProject, send, webSuite, type World } from './helpers.js';

/**
 * A hovered primary button (Send, Allow once) keeps its own colours: its label stays readable
 * (the plain button's hover must not paint it light grey under the white label), light and dark.
 */
describe('web: primary buttons on hover', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('primary-hover', {}, (x, p) => ((w = x), (page = p)));

  async function check(p: Page, scheme: string): Promise<void> {
    await newSession(p);
    const box = p.getByLabel('Message to the agent');
    await box.fill('hello');
    const sendBtn = p.getByRole('button', { name: 'Send', exact: true });
    const still = await ownContrast(sendBtn);
    await sendBtn.hover();
    // Hovered: a different (accent) background than at rest, and the label readable on it.
    const hovered = await ownContrast(sendBtn);
    expect(hovered.ratio, `Send hovered (${scheme}): ${hovered.color} on ${hovered.background}`).toBeGreaterThanOrEqual(
      4.5,
    );
    expect(hovered.background).not.toBe(still.background);
    await shot(p, `primary-hover-send-${scheme}`);

    const file = `hover-${scheme}.txt`;
    writeFileSync(join(w.served.project, file), 'one\n');
    await send(p, `edit ${file}`);
    const allow = p
      .getByRole('region', { name: new RegExp(`^Approval needed: Edit ${file.replace('.', '\\.')}`) })
      .getByRole('button', { name: /^Allow once/ });
    await allow.waitFor({ timeout: 30_000 });
    const rest = await ownContrast(allow);
    expect(rest.ratio).toBeGreaterThanOrEqual(4.5);
    await allow.hover();
    const over = await ownContrast(allow);
    expect(over.ratio, `Allow once hovered (${scheme}): ${over.color} on ${over.background}`).toBeGreaterThanOrEqual(
      4.5,
    );
    await shot(p, `primary-hover-allow-${scheme}`);
    await allow.click();
    await expect.poll(() => p.getByRole('button', { name: /^Allow once/ }).count(), { timeout: 30_000 }).toBe(0);
  }

  it('Send and Allow once stay readable when hovered (light)', async () => {
    await check(page, 'light');
    expect(w.errors).toEqual([]);
  });

  it('Send and Allow once stay readable when hovered (dark)', async () => {
    const ctx = await w.browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'dark' });
    const dark = await openPage(w, { context: ctx });
    await openProject(dark, w.served.project);
    await check(dark, 'dark');
    expect(w.errors).toEqual([]);
    await ctx.close();
  });
});
