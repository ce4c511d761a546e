import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { axeViolations } from './axe.js';
import { newSession, send, webSuite, type World } from './helpers.js';
import { darkToo, shotBoth } from './sizes.js';

/**
 * Issue 37, the sidebar: branches, forks and continuations nest under the session they came from,
 * with a label that says what they are; rows that would read the same get a short id; workspaces
 * whose folder is gone are hidden behind a toggle; one-shot `talaria run` sessions are marked.
 */
describe('web: the sidebar nests branches and says what each row is', { timeout: 180_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('sidebar-tree', { hermes: true, config: { defaultProvider: 'demo' } }, (x, p) => ((w = x), (page = p)));

  const row = (id: string): Locator => page.locator(`a[data-session="${id}"]`);
  /** The row's own list item: its branches are in the list nested in it. */
  const item = (id: string): Locator => row(id).locator('xpath=..');
  const label = (id: string) => row(id).locator('.branch-label');
  const userIds = async (id: string): Promise<string[]> => {
    const { snapshot } = await w.api.api.snapshot({ params: { id } });
    return (snapshot.thread.entries as { kind: string; id: string }[])
      .filter((e) => e.kind === 'user_message')
      .map((e) => e.id);
  };

  it('rewinds (twice at one message), a continuation in Hermes and a fork nest under their root, each labelled; look-alikes get a short id', async () => {
    const root = await newSession(page);
    for (const [i, text] of ['one', 'two', 'three'].entries()) {
      await send(page, text);
      await expect.poll(() => page.locator('.msg.agent').count(), { timeout: 30_000 }).toBe(i + 1);
      await expect
        .poll(async () => (await w.api.api.snapshot({ params: { id: root } })).snapshot.turnId, { timeout: 30_000 })
        .toBeUndefined();
    }
    const third = (await userIds(root))[2]!;
    // Two rewinds at message 3 with nothing sent yet: the same title, the same label.
    const rw1 = (await w.api.api.createBranch({ params: { id: root }, body: { at: third } })).snapshot.session.id;
    const rw2 = (await w.api.api.createBranch({ params: { id: root }, body: { at: third } })).snapshot.session.id;
    const second = (await userIds(root))[1]!;
    const rw3 = (await w.api.api.createBranch({ params: { id: root }, body: { at: second } })).snapshot.session.id;
    const hermes = (await w.api.api.createBranch({ params: { id: root }, body: { provider: 'hermes' } })).snapshot
      .session.id;
    const fork = (await w.api.api.fork({ params: { id: root } })).snapshot.session.id;

    for (const id of [rw1, rw2, rw3, hermes, fork])
      await item(root).locator(`.session-children a[data-session="${id}"]`).waitFor({ timeout: 20_000 });
    expect(await label(root).count()).toBe(0);
    expect(await label(rw1).textContent()).toBe('↳ rewound at message 3');
    expect(await label(rw2).textContent()).toBe('↳ rewound at message 3');
    expect(await label(rw3).textContent()).toBe('↳ rewound at message 2');
    expect(await label(hermes).textContent()).toMatch(/^↳ in Hermes/);
    expect(await label(fork).textContent()).toBe('↳ fork');
    // The two rewinds at message 3 read the same but for their short ids; the rest need none.
    const tag = (id: string) => row(id).locator('.session-tag');
    expect(await row(rw1).locator('.session-title').textContent()).toBe(
      await row(rw2).locator('.session-title').textContent(),
    );
    expect(await tag(rw1).textContent()).toBe(rw1.slice(0, 6));
    expect(await tag(rw2).textContent()).toBe(rw2.slice(0, 6));
    for (const id of [root, rw3, hermes, fork]) expect(await tag(id).count()).toBe(0);
    // A look-alike row is never only its title: every row's visible text differs from its siblings'.
    const texts = await item(root)
      .locator(':scope > ul > li > a')
      .evaluateAll((as) => as.map((a) => (a as { innerText: string }).innerText));
    expect(new Set(texts).size).toBe(texts.length);
    expect(await page.getByRole('list', { name: /^Branches of / }).count()).toBe(1);

    await row(rw1).click();
    await page.getByLabel('Message to the agent').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await shotBoth(page, 'sidebar-branches', { phoneNav: true });
    expect(await darkToo(page, 'sidebar-branches', axeViolations, { phoneNav: true })).toEqual([]);
  });

  it('a session made by a one-shot `talaria run` is marked as such; one made here is not', async () => {
    const made = await w.served.cli(['run', '--agent', 'demo', 'a one-shot question']);
    expect(made.code).toBe(0);
    await page.reload();
    const run = page.locator('a[data-session]', { hasText: 'a one-shot question' }).first();
    await run.waitFor({ timeout: 30_000 });
    expect(await run.locator('.pill', { hasText: 'one-shot run' }).count()).toBe(1);
    const id = (await run.getAttribute('data-session'))!;
    expect((await w.api.api.listSessions({ query: {} })).sessions.find((s) => s.id === id)?.createdBy).toBe('run');
    await shotBoth(page, 'sidebar-one-shot-run', { phoneNav: true });
    const here = await newSession(page);
    await send(page, 'made in the page');
    await expect.poll(() => row(here).locator('.session-title').textContent(), { timeout: 30_000 }).toMatch(/\S/);
    expect(await row(here).locator('.pill', { hasText: 'one-shot run' }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
  });

  it('a workspace whose folder is gone is hidden behind "show hidden"', async () => {
    const scratch = join(w.served.home, 'scratch-run');
    mkdirSync(scratch);
    const { workspace } = await w.api.api.openWorkspace({ body: { path: scratch } });
    await w.api.api.createSession({ params: { id: workspace.id }, body: { provider: 'demo' } });
    await page.reload();
    const group = page.getByRole('region', { name: 'Workspace scratch-run' });
    await group.waitFor({ timeout: 20_000 });
    rmSync(scratch, { recursive: true, force: true });
    await page.reload();
    await page.getByRole('region', { name: /^Workspace project/ }).waitFor({ timeout: 20_000 });
    expect(await group.count()).toBe(0);
    const toggle = page.getByRole('button', { name: 'Show 1 hidden workspace (folder gone)' });
    await toggle.click();
    await group.waitFor();
    expect(await group.locator('.ws-gone').textContent()).toBe('folder gone');
    // Shown last, beside the toggle that hides them again.
    expect(
      await page
        .getByRole('region', { name: /^Workspace / })
        .last()
        .getAttribute('aria-label'),
    ).toBe('Workspace scratch-run');
    expect(await group.getByRole('button', { name: /^New session with/ }).count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    await page.locator('.sidebar-scroll').evaluate((el) => el.scrollTo(0, el.scrollHeight));
    await shotBoth(page, 'sidebar-gone-shown', { phoneNav: true });
    await page.getByRole('button', { name: 'Hide workspaces whose folder is gone' }).click();
    await expect.poll(() => group.count()).toBe(0);
    expect(w.errors).toEqual([]);
  });
});
