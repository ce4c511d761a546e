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

/** The same state in the dark scheme: no serious axe violation, and its two shots (`NAME-dark-…`). */
export async function darkToo(
  page: Page,
  name: string,
  axe: (p: Page) => Promise<string[]>,
  o: { phoneNav?: boolean } = {},
): Promise<string[]> {
  await page.emulateMedia({ colorScheme: 'dark' });
  try {
    const found = await axe(page);
    await shotBoth(page, `${name}-dark`, o);
    return found;
  } finally {
    await page.emulateMedia({ colorScheme: 'light' });
  }
}

/** `o.phoneNav`: the phone shot is of the sessions drawer (opened for it, closed after). */
export async function shotBoth(page: Page, name: string, o: { phoneNav?: boolean } = {}): Promise<void> {
  const was = page.viewportSize();
  await page.setViewportSize(DESKTOP);
  await settled(page);
  await shot(page, `${name}-desktop`);
  await page.setViewportSize(PHONE);
  await settled(page);
  const nav = page.getByRole('button', { name: 'Sessions', exact: true });
  if (o.phoneNav) {
    await nav.click();
    await settled(page);
  }
  await shot(page, `${name}-phone`);
  // The open drawer covers its own button: closed by the button's click event, not a pointer.
  if (o.phoneNav && (await nav.getAttribute('aria-expanded')) === 'true') await nav.dispatchEvent('click');
  if (was) await page.setViewportSize(was);
}
