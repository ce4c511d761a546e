import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { axeViolations } from './axe.js';
import { newSession, send, webSuite, type World } from './helpers.js';

/** Terminal colours, the protocol inspector, rules and the audit log, export / archive / fork. */
describe('web: terminal, inspector, settings, export', { timeout: 90_000 }, () => {
  let w: World;
  let page: Page;
  let id: string;
  webSuite('extras', {}, (x, p) => ((w = x), (page = p)));
  beforeAll(async () => {
    id = await newSession(page);
  });
  /** Clicks a download link and reads what the browser saved. */
  async function downloaded(p: Page, item: string): Promise<{ name: string; text: string }> {
    await menuItem(p, item);
    const [download] = await Promise.all([
      p.waitForEvent('download'),
      p.getByRole('menuitem', { name: item, exact: true }).click(),
    ]);
    const body = await (await download.createReadStream()).toArray();
    return { name: download.suggestedFilename(), text: Buffer.concat(body).toString('utf8') };
  }

  /** Opens the header's ⋯ menu (the session's actions are there) and waits for the item. */
  async function menuItem(p: Page, item: string): Promise<void> {
    await p.getByRole('button', { name: 'More actions' }).click();
    await p.getByRole('menuitem', { name: item, exact: true }).waitFor();
  }

  it('a command tool card shows its output as a terminal with its colours', async () => {
    await send(page, "run printf '\\033[31mred alert\\033[0m and plain\\n'");
    const card = page.getByRole('region', { name: /^Approval needed:/ });
    await card.waitFor({ timeout: 20_000 });
    await card.getByRole('button', { name: /^Allow once/ }).click();
    const tool = page.locator('.tool-card[data-kind=execute]').last();
    await expect.poll(() => tool.locator('.tool-status').textContent(), { timeout: 20_000 }).toBe('done');
    const red = tool.locator('pre.terminal span.ansi-red-fg');
    await expect.poll(() => red.textContent()).toBe('red alert');
    expect(await tool.locator('pre.terminal').textContent()).toContain('and plain');
    await shot(page, 'terminal-colours');
  });

  it('the protocol inspector shows the wire log both ways, filters by method and direction, pretty JSON', async () => {
    await menuItem(page, 'Inspector');
    await page.getByRole('menuitem', { name: 'Inspector' }).click();
    await page.getByRole('heading', { name: 'Protocol inspector' }).waitFor();
    const frames = page.getByRole('list', { name: 'Wire frames' }).locator('li');
    await expect.poll(() => frames.count(), { timeout: 20_000 }).toBeGreaterThan(5);
    expect(await page.locator('.frame.dir-out').count()).toBeGreaterThan(0);
    expect(await page.locator('.frame.dir-in').count()).toBeGreaterThan(0);
    await page.getByLabel('Filter by method').fill('session/prompt');
    await expect
      .poll(async () => (await frames.allTextContents()).every((t) => t.includes('session/prompt')))
      .toBe(true);
    await page.getByLabel('Filter by method').fill('session/update');
    await page.getByRole('button', { name: '← from agent' }).click();
    await expect.poll(() => page.locator('.frame.dir-out').count()).toBe(0);
    expect(await frames.count()).toBeGreaterThan(0);
    await frames.first().getByRole('button').click();
    expect(await frames.first().locator('pre.json').textContent()).toContain('"sessionUpdate"');
    await shot(page, 'inspector');
    // The inspector is a side panel now (issue 37): "Close" replaced "← Back to the session".
    await page.getByRole('link', { name: 'Close the inspector' }).click();
    await page.getByLabel('Message to the agent').waitFor();
  });

  /** Names in the inspector's method column that the layout broke across two lines. */
  const splitNames = (p: typeof page): Promise<string[]> =>
    p.evaluate(`(() => {
      const out = [];
      for (const span of document.querySelectorAll('.inspector-panel .frame-line > span:nth-of-type(3)')) {
        const walker = document.createTreeWalker(span, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          for (const m of n.data.matchAll(/[^\\s\\/·]+/g)) {
            const r = document.createRange();
            r.setStart(n, m.index);
            r.setEnd(n, m.index + m[0].length);
            if (r.getClientRects().length > 1) out.push(m[0]);
          }
        }
      }
      return out;
    })()`);

  it('the inspector opens beside the conversation; requests paired with responses, times and latency; filters kept', async () => {
    await menuItem(page, 'Inspector');
    await page.getByRole('menuitem', { name: 'Inspector' }).click();
    const panel = page.getByRole('complementary', { name: 'Protocol inspector' });
    await panel.getByRole('heading', { name: 'Protocol inspector' }).waitFor();
    // Beside, not instead: the conversation and its message box are still there.
    expect(await page.getByLabel('Message to the agent').isVisible()).toBe(true);
    const side = (await panel.boundingBox())!;
    const box = (await page.getByLabel('Message to the agent').boundingBox())!;
    expect(box.x + box.width).toBeLessThanOrEqual(side.x + 1);
    // The filters of the last visit are kept.
    expect(await panel.getByLabel('Filter by method').inputValue()).toBe('session/update');
    expect(await panel.getByRole('button', { name: '← from agent' }).getAttribute('aria-pressed')).toBe('true');
    await panel.getByRole('button', { name: 'Both' }).click();
    await panel.getByLabel('Filter by method').fill('');
    const frames = panel.getByRole('list', { name: 'Wire frames' }).locator('li');
    const prompt = frames.filter({ hasText: 'session/prompt' }).first();
    await expect.poll(() => prompt.textContent(), { timeout: 20_000 }).toMatch(/answered by (\d+) in \d+ ms/);
    const answer = /answered by (\d+)/.exec((await prompt.textContent()) ?? '')![1]!;
    const reqSeq = (await prompt.locator('.mono.small').first().textContent())!;
    const response = frames
      .filter({ has: page.locator('.mono.small', { hasText: new RegExp(`^${answer}$`) }) })
      .first();
    expect(await response.textContent()).toMatch(new RegExp(`answers ${reqSeq} after \\d+ ms`));
    expect(await prompt.locator('time').textContent()).toMatch(/^\+\d+\.\d{3} s$/);
    await page.setViewportSize({ width: 1440, height: 900 });
    // A method wraps between its names, never inside one ("session/request_perm / ission" was the bug).
    expect(await splitNames(page)).toEqual([]);
    await shot(page, 'inspector-side-desktop-light');
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, 'inspector-side-desktop-dark');
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    // The sidebar slides away on a phone: shoot once it is off screen.
    type Box = { getBoundingClientRect(): { right: number } };
    await expect
      .poll(() => page.locator('.sidebar').evaluate((e) => (e as unknown as Box).getBoundingClientRect().right))
      .toBeLessThanOrEqual(0);
    await shot(page, 'inspector-side-phone-dark');
    expect(await splitNames(page)).toEqual([]);
    expect(await axeViolations(page)).toEqual([]);
    await page.emulateMedia({ colorScheme: 'light' });
    await shot(page, 'inspector-side-phone-light');
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 820 });
    await panel.getByRole('link', { name: 'Close the inspector' }).click();
    await panel.waitFor({ state: 'detached' });
    expect(w.errors).toEqual([]);
  });

  it('settings: add and delete a global rule; the audit log lists the approval given above', async () => {
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings' }).waitFor();
    await expect.poll(() => page.locator('table').nth(1).textContent(), { timeout: 10_000 }).toMatch(/user|serve/);
    await page.getByLabel('Decision').selectOption('allow');
    await page.getByLabel('Tool kind').fill('read');
    await page.getByLabel('Path glob').fill('**/*.md');
    await page.getByRole('button', { name: 'Add rule' }).click();
    const rule = page.locator('table').first().locator('tr', { hasText: '**/*.md' });
    await rule.waitFor();
    expect(await rule.textContent()).toContain('global');
    await shot(page, 'settings');
    await rule.getByRole('button', { name: /^Delete rule/ }).click();
    await expect.poll(() => rule.count()).toBe(0);
  });

  it('export as Markdown, JSON and the wire fixture (downloads), fork, archive and unarchive', async () => {
    await page.goto(`${w.served.origin}/#/s/${encodeURIComponent(id)}`);
    await page.getByLabel('Message to the agent').waitFor();
    const md = await downloaded(page, 'Export .md');
    expect(md.name).toMatch(/^talaria-.*\.md$/);
    expect(md.text).toContain('printf');
    // JSON: the session and its thread, the command's tool call in it.
    const json = await downloaded(page, 'Export .json');
    expect(json.name).toMatch(/\.json$/);
    expect(JSON.stringify(JSON.parse(json.text))).toContain('printf');
    // The wire fixture: one `{t_ms, dir, msg}` frame a line, both directions, the prompt as sent.
    const wire = await downloaded(page, 'Export wire log');
    expect(wire.name).toMatch(/\.ndjson$/);
    const frames = wire.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { t_ms: number; dir: string; msg: { method?: string; params?: unknown } });
    expect(new Set(frames.map((f) => f.dir))).toEqual(new Set(['client->agent', 'agent->client']));
    expect(
      frames.some((f) => f.msg.method === 'session/prompt' && JSON.stringify(f.msg.params).includes('printf')),
    ).toBe(true);

    await menuItem(page, 'Fork');
    await page.getByRole('menuitem', { name: 'Fork' }).click();
    await expect.poll(() => new URL(page.url()).hash, { timeout: 20_000 }).not.toContain(encodeURIComponent(id));
    await expect
      .poll(() => page.locator('.tool-card[data-kind=execute]').count(), { timeout: 20_000 })
      .toBeGreaterThan(0);
    const forkHash = new URL(page.url()).hash;

    await menuItem(page, 'Archive');
    await page.getByRole('menuitem', { name: 'Archive' }).click();
    const forkId = decodeURIComponent(forkHash.replace('#/s/', ''));
    await expect.poll(() => page.locator(`[data-session="${forkId}"]`).count()).toBe(0);
    await page.getByLabel('Archived').check();
    await page.locator(`[data-session="${forkId}"]`).waitFor();
    await menuItem(page, 'Unarchive');
    await page.getByRole('menuitem', { name: 'Unarchive' }).click();
    await page.getByLabel('Archived').uncheck();
    await page.locator(`[data-session="${forkId}"]`).waitFor();
    expect(w.errors).toEqual([]);
  });
});
