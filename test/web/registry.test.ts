/**
 * The readiness page's ACP Registry list (issue 13), in Chromium against a real `talaria serve`
 * whose registry is a loopback server holding a snapshot in the real format (as the CLI's
 * registry tests use): name, description, version, license and icon; the search narrows it.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveIndex, startLoopback, type Loopback } from '../providers/registry-acp/helpers.js';
import { shot } from './browser.js';
import { openPage, world, type World } from './helpers.js';

describe('web: the registry list on the readiness page', { timeout: 120_000 }, () => {
  let lb: Loopback;
  let w: World;
  let page: Page;
  beforeAll(async () => {
    lb = await startLoopback();
    lb.routes.set('/icons/fake.svg', {
      body: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="10" fill="#3b5bdb"/></svg>'),
      type: 'image/svg+xml',
    });
    serveIndex(
      lb,
      [
        {
          id: 'fake-reg',
          name: 'Fake Registry Agent',
          version: '1.0.0',
          description: 'An echo agent for tests',
          license: 'MIT',
          icon: `${lb.url}/icons/fake.svg`,
          distribution: { npx: { package: 'talaria-fake-cli-agent@1.0.0' } },
        },
        {
          id: 'bin-agent',
          name: 'Bin Agent',
          version: '2.0.0',
          description: 'Archive agent',
          license: 'Apache-2.0',
          distribution: { binary: { 'linux-x86_64': { archive: `${lb.url}/dl/bin.tar.gz`, cmd: './dist/agent' } } },
        },
      ],
      '"v1"',
    );
    w = await world({ env: { TALARIA_REGISTRY_URL: `${lb.url}/registry.json` } });
    page = await openPage(w);
    await page.goto(`${w.served.origin}/#/readiness`);
  }, 120_000);
  afterAll(async () => {
    await w?.stop();
    await lb?.close();
  });

  it('lists the snapshot with version, license and icon; the search narrows it', async () => {
    const list = page.getByRole('region', { name: 'ACP Registry' });
    const items = list.locator('.registry-item');
    await expect.poll(() => items.count(), { timeout: 60_000 }).toBe(2);
    expect(await list.textContent()).toContain(`2 agents from ${lb.url}/registry.json`);
    const fake = list.locator('[data-agent=fake-reg]');
    expect(await fake.textContent()).toMatch(/Fake Registry Agent\s*1\.0\.0 · MIT.*talaria agents add fake-reg.*An echo agent for tests/s);
    await expect.poll(() => fake.locator('img').evaluate((i) => (i as unknown as { complete: boolean; naturalWidth: number }).naturalWidth)).toBe(24);
    expect(await list.locator('[data-agent=bin-agent]').textContent()).toMatch(/Bin Agent\s*2\.0\.0 · Apache-2\.0/);
    await list.scrollIntoViewIfNeeded();
    await shot(page, 'registry-list');

    await list.getByRole('searchbox', { name: 'Search the registry' }).fill('archive');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().getAttribute('data-agent')).toBe('bin-agent');
    await list.getByRole('searchbox', { name: 'Search the registry' }).fill('nothing like this');
    await list.getByText('No agent matches').waitFor();
    expect(lb.requests.some((r) => r.path === '/registry.json')).toBe(true);
    expect(w.errors).toEqual([]);
  });
});
