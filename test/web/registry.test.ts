/**
 * The readiness page's ACP Registry list (issue 13), in Chromium against a real `talaria serve`
 * whose registry is a loopback server holding a snapshot in the real format (as the CLI's
 * registry tests use): name, description, version, license and icon; the search narrows it;
 * Add installs a locally built archive agent (sha256 checked), which the new-session menu offers
 * at once and which answers a turn (the echo agent, real ACP); Update appears with a newer index
 * version; Remove takes it out of the menu.
 */
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { agentTarGz, serveIndex, sha256, startLoopback, type Loopback } from '../providers/registry-acp/helpers.js';
import { tempDir } from '../harness/helpers.js';
import { shot } from './browser.js';
import { openPage, openProject, send, world, type World } from './helpers.js';

describe('web: the registry list on the readiness page', { timeout: 180_000 }, () => {
  let lb: Loopback;
  let w: World;
  let page: Page;
  let tgz: Buffer;
  const fake = {
    id: 'fake-reg',
    name: 'Fake Registry Agent',
    version: '1.0.0',
    description: 'An echo agent for tests',
    license: 'MIT',
    icon: '',
    distribution: { npx: { package: 'talaria-fake-cli-agent@1.0.0' } },
  };
  const bin = (version: string) => ({
    id: 'bin-agent',
    name: 'Bin Agent',
    version,
    description: 'Archive agent',
    license: 'Apache-2.0',
    distribution: {
      binary: { 'linux-x86_64': { archive: `${lb.url}/dl/bin.tar.gz`, cmd: './dist/agent', sha256: sha256(tgz) } },
    },
  });
  beforeAll(async () => {
    lb = await startLoopback();
    tgz = await agentTarGz(tempDir('web-reg'));
    lb.routes.set('/dl/bin.tar.gz', { body: tgz });
    lb.routes.set('/icons/fake.svg', {
      body: Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><circle cx="12" cy="12" r="10" fill="#3b5bdb"/></svg>',
      ),
      type: 'image/svg+xml',
    });
    fake.icon = `${lb.url}/icons/fake.svg`;
    serveIndex(lb, [fake, bin('2.0.0')], '"v1"');
    w = await world({ env: { TALARIA_REGISTRY_URL: `${lb.url}/registry.json` } });
    page = await openPage(w);
    // The page keeps the link's token (a cookie) once the app is up: only then go to another page.
    await openProject(page, w.served.project);
    await page.goto(`${w.served.origin}/#/readiness`);
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await shot(page, `FAIL-registry-${ctx.task.name.slice(0, 20)}`);
  });
  afterAll(async () => {
    await w?.stop();
    await lb?.close();
  });

  const list = () => page.getByRole('region', { name: 'ACP Registry' });
  const row = () => list().locator('[data-agent=bin-agent]');
  const menuItems = async () => {
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).first().click();
    const items = await page.getByRole('menuitem').allTextContents();
    // The toggle closes it again.
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).first().click();
    return items.join(' | ');
  };

  it('lists the snapshot with version, license and icon; the search narrows it', async () => {
    const items = list().locator('.registry-item');
    await expect.poll(() => items.count(), { timeout: 60_000 }).toBe(2);
    expect(await list().textContent()).toContain(`2 agents from ${lb.url}/registry.json`);
    const f = list().locator('[data-agent=fake-reg]');
    expect(await f.textContent()).toMatch(/Fake Registry Agent\s*1\.0\.0 · MIT.*An echo agent for tests/s);
    expect(await f.getByRole('button', { name: 'Add Fake Registry Agent' }).isEnabled()).toBe(true);
    await expect
      .poll(() =>
        f.locator('img').evaluate((i) => (i as unknown as { complete: boolean; naturalWidth: number }).naturalWidth),
      )
      .toBe(24);
    expect(await row().textContent()).toMatch(/Bin Agent\s*2\.0\.0 · Apache-2\.0/);
    await list().scrollIntoViewIfNeeded();
    await shot(page, 'registry-list');

    await list().getByRole('searchbox', { name: 'Search the registry' }).fill('nothing like this');
    await list().getByText('No agent matches').waitFor();
    await list().getByRole('searchbox', { name: 'Search the registry' }).fill('archive');
    await expect.poll(() => items.count()).toBe(1);
    expect(await items.first().getAttribute('data-agent')).toBe('bin-agent');
    expect(lb.requests.some((r) => r.path === '/registry.json')).toBe(true);
    expect(w.errors).toEqual([]);
  });

  it('Add → installed and in the new-session menu, a turn answers; Update when the index moves; Remove → out of the menu', async () => {
    expect(await menuItems()).not.toContain('Bin Agent');
    await page.goto(`${w.served.origin}/#/readiness`);
    await list().getByRole('searchbox', { name: 'Search the registry' }).fill('archive');
    // No update offered before an install; the Add click shows the install running.
    expect(await row().getByRole('button', { name: 'Update Bin Agent' }).count()).toBe(0);
    await row().getByRole('button', { name: 'Add Bin Agent' }).click();
    await row().getByText('Installed 2.0.0', { exact: true }).waitFor({ timeout: 60_000 });
    await row().getByText('· installed 2.0.0', { exact: true }).waitFor();
    expect(await row().getByRole('button', { name: 'Update Bin Agent' }).isDisabled()).toBe(true);
    expect(await row().getByRole('button', { name: 'Remove Bin Agent' }).isEnabled()).toBe(true);
    await row().scrollIntoViewIfNeeded();
    await shot(page, 'registry-installed');
    // This page's agent list has it too, ready.
    await page.locator('#provider-bin-agent').getByText('ready').waitFor();

    // The new-session menu offers it without a restart, and a session with it answers.
    await expect.poll(() => menuItems(), { timeout: 30_000 }).toContain('Bin Agent');
    await page.getByRole('button', { name: 'Choose the agent for a new session' }).first().click();
    await page.getByRole('menuitem', { name: /Bin Agent/ }).click();
    await page.waitForURL(/#\/s\//);
    await send(page, 'hello from the registry agent');
    // The echo agent answers with the prompt's text.
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 60_000 })
      .toContain('hello from the registry agent');
    await shot(page, 'registry-session-answered');

    // A newer version in the index: Update is offered and moves to it.
    serveIndex(lb, [fake, bin('2.1.0')], '"v2"');
    await page.goto(`${w.served.origin}/#/readiness`);
    await list().getByRole('searchbox', { name: 'Search the registry' }).fill('archive');
    const update = row().getByRole('button', { name: 'Update Bin Agent' });
    await expect.poll(() => update.isEnabled(), { timeout: 30_000 }).toBe(true);
    expect(await update.textContent()).toBe('Update to 2.1.0');
    await row().scrollIntoViewIfNeeded();
    await shot(page, 'registry-update-offered');
    await update.click();
    await row().getByText('Updated 2.0.0 → 2.1.0').waitFor({ timeout: 60_000 });
    await row().getByText('· installed 2.1.0', { exact: true }).waitFor();
    await shot(page, 'registry-updated');

    await row().getByRole('button', { name: 'Remove Bin Agent' }).click();
    await row()
      .getByText(/Removed 2\.1\.0/)
      .waitFor({ timeout: 60_000 });
    expect(await row().getByRole('button', { name: 'Add Bin Agent' }).isEnabled()).toBe(true);
    await shot(page, 'registry-removed');
    await expect.poll(() => menuItems(), { timeout: 30_000 }).not.toContain('Bin Agent');
    expect(w.errors).toEqual([]);
  });
});
