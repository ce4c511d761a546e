/**
 * Screenshots of one state at the two sizes the UI is judged at (issue 37): a desktop (1440×900)
 * and a phone (390×844). The page gets its own viewport back afterwards.
 */
import type { Page } from 'playwright-core';
import { shot } from './browser.js';

export const DESKTOP = { width: 1440, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** A resize starts the layout's transitions (the phone's drawer slides away): the shot waits for them. */
async function settled(page: Page): Promise<void> {
  await page.evaluate(`Promise.all(document.getAnimations().map((a) => a.finished.catch(() => undefined)))`);
}

export async function shotBoth(page: Page, name: string): Promise<void> {
  const was = page.viewportSize();
  for (const [size, suffix] of [
    [DESKTOP, 'desktop'],
    [PHONE, 'phone'],
  ] as const) {
    await page.setViewportSize(size);
    await settled(page);
    await shot(page, `${name}-${suffix}`);
  }
  if (was) await page.setViewportSize(was);
}
