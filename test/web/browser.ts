/**
 * Chromium for the web UI tests: Debian's /usr/bin/chromium driven by playwright-core (browsers
 * cannot be downloaded here; `.ci/run` installs the package). Headless, no network beyond
 * loopback, nothing shared between runs (each launch gets a fresh temporary profile; the files of
 * one worker process share a browser, each page in a context of its own: sharedBrowser).
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

let shared: Promise<Browser> | undefined;

/**
 * One Chromium for every test file of this process (test files share worker processes,
 * vitest.config.ts): a launch cost ~0.9 s of CPU per file. Files stay apart all the same: each
 * page lives in a context of its own (cookies, storage, cache), and `releaseShared` closes the
 * file's contexts when it is done. A browser that died is launched again.
 */
export async function sharedBrowser(): Promise<Browser> {
  const b = await shared?.catch(() => undefined);
  if (b?.isConnected()) return b;
  shared = launch();
  return shared;
}

/** The end of a file's use of the shared browser: its contexts (and their pages) are closed. */
export async function releaseShared(browser: Browser): Promise<void> {
  await Promise.all(browser.contexts().map((c) => c.close().catch(() => undefined)));
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
