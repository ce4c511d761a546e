/**
 * Chromium for the web UI tests: Debian's /usr/bin/chromium driven by playwright-core (browsers
 * cannot be downloaded here; `.ci/run` installs the package). Headless, no network beyond
 * loopback, nothing shared between runs (each launch gets a fresh temporary profile).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = process.env.TALARIA_CHROMIUM ?? '/usr/bin/chromium';
export const SHOTS = fileURLToPath(new URL('../../.cache/web-shots', import.meta.url));

export async function launch(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium; .ci/run does it)`);
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}

/** The phone the layout tests use (an iPhone-sized viewport, touch, 2× pixels, light). */
export const PHONE = {
  viewport: { width: 390, height: 844 },
  isMobile: true,
  hasTouch: true,
  deviceScaleFactor: 2,
  colorScheme: 'light',
} as const;

/** Saves a screenshot under .cache/web-shots (looked at by a person: part of the test). */
export async function shot(page: Page, name: string): Promise<string> {
  mkdirSync(SHOTS, { recursive: true });
  const path = join(SHOTS, `${name}.png`);
  await page.screenshot({ path });
  return path;
}
