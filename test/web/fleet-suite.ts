/** A fleet web test's setup: the web build, Chromium and the fleet's cluster and hosts (test/fleet/fleet-serve.ts). */
import type { Browser } from 'playwright-core';
import { fleetSuite, type FleetSuite } from '../fleet/fleet-serve.js';
import { releaseShared, sharedBrowser } from './browser.js';
import { ensureWebBuilt } from './build.js';

export function webFleetSuite(): FleetSuite & { readonly browser: Browser } {
  let browser: Browser | undefined;
  const s = fleetSuite({
    setup: async () => {
      await ensureWebBuilt();
      browser = await sharedBrowser();
    },
    teardown: async () => {
      if (browser) await releaseShared(browser);
    },
  });
  return {
    fleet: s.fleet,
    get cluster() {
      return s.cluster;
    },
    get browser() {
      return browser!;
    },
  };
}
