import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Page, WebSocketRoute } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, openPage, openProject, webSuite, type World } from './helpers.js';

/** What has the focus: its tag and accessible label (a string: the test's tsconfig has no DOM types). */
const FOCUSED = `(() => { const a = document.activeElement; return a ? a.tagName + ' ' + (a.getAttribute('aria-label') ?? a.textContent ?? '').trim() : ''; })()`;

/**
 * Around an approval (issue 37): a reject that lost the race reads as a calm notice; an observer's
 * model and mode are plain text; keys typed into the message box say how to answer with 1/2/3.
 */
describe('web: lost answers, observer pickers, the number keys while typing', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite('answer-notices', {}, (x, p) => ((w = x), (page = p)));

  const pendingOf = async (id: string) => (await w.api.api.permissions({ params: { id } })).pending;

  it('a reject that lost the race to another answer shows "Already answered by …" as a notice, not an error', async () => {
    // A second tab whose live updates the test can hold back: it still shows the request after another client answered.
    const ctx = await w.browser.newContext({ viewport: { width: 1280, height: 820 }, colorScheme: 'light' });
    let hold = false;
    const held: (string | Buffer)[] = [];
    let toPage: WebSocketRoute | undefined;
    await ctx.routeWebSocket(/\/ws/, (ws) => {
      const server = ws.connectToServer();
      toPage = ws;
      server.onMessage((m) => (hold ? held.push(m) : ws.send(m)));
      ws.onMessage((m) => server.send(m));
    });
    const late = await openPage(w, { context: ctx });
    await openProject(late, w.served.project);
    const id = await newSession(late);
    writeFileSync(join(w.served.project, 'race.txt'), 'one\n');
    await w.api.api.prompt({ params: { id }, body: { text: 'edit race.txt', images: [] } });
    const card = late.getByRole('region', { name: /^Approval needed: Edit race\.txt/ });
    await card.waitFor({ timeout: 30_000 });

    hold = true;
    const [p] = await pendingOf(id);
    const allow = (p!.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'allow_once')!;
    await w.api.api.answerPermission({ params: { id, requestKey: p!.requestKey }, body: { optionId: allow.optionId } });
    await expect.poll(async () => (await pendingOf(id)).length).toBe(0);
    // The late tab still shows the card: its Reject loses the race.
    await card.getByRole('button', { name: /^Reject/ }).click();
    const notice = late.getByRole('status').filter({ hasText: /^.?Already answered by / });
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(
      /Already answered by serve \(this link, in another tab or device\): that answer stands\./,
    );
    expect(await notice.getAttribute('class')).toContain('notice');
    expect(await late.locator('.error.banner').count()).toBe(0);
    expect(
      await late
        .getByRole('alert')
        .filter({ hasText: /already answered/i })
        .count(),
    ).toBe(0);
    await shot(late, 'answer-lost-race');

    // The held updates arrive: the card goes, the tool says who allowed it; the notice can be dismissed.
    hold = false;
    for (const m of held.splice(0)) toPage!.send(m);
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    await late.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    expect(w.errors).toEqual([]);
    await ctx.close();
  });

  it('an observer sees the model and mode as text, not as menus it cannot use', async () => {
    const id = await newSession(page);
    // The controller's menus are there.
    await page.getByRole('combobox', { name: 'Model', exact: true }).waitFor();
    const obsToken = w.served.addToken('observer', 'watcher');
    const obs = await openPage(w, { url: `${w.served.origin}/#token=${obsToken}` });
    await obs.getByRole('note').filter({ hasText: 'Read-only link' }).waitFor();
    await obs.locator(`[data-session="${id}"]`).click();
    await obs.getByText('Read-only: this link can watch, not prompt.').waitFor();
    const header = obs.locator('.session-header');
    await expect.poll(() => header.textContent(), { timeout: 30_000 }).toMatch(/Model\s*Demo fast/);
    expect(await header.textContent()).toMatch(/Mode\s*Ask/);
    expect(await obs.getByRole('combobox').count()).toBe(0);
    await shot(obs, 'observer-header');
    expect(w.errors).toEqual([]);
    await obs.context().close();
  });

  it('an approval that arrives while the message box holds text says the number keys need the focus elsewhere; after Tab, 1 answers', async () => {
    const id = await newSession(page);
    const box = page.getByLabel('Message to the agent');
    await box.fill('a draft I am writing');
    await box.focus();
    writeFileSync(join(w.served.project, 'typing.txt'), 'one\n');
    await w.api.api.prompt({ params: { id }, body: { text: 'edit typing.txt', images: [] } });
    const card = page.getByRole('region', { name: /^Approval needed: Edit typing\.txt/ });
    await card.waitFor({ timeout: 30_000 });
    // The focus stays in the box (it holds text), and the card says so.
    expect(await page.evaluate<string>(FOCUSED)).toMatch(/^TEXTAREA Message to the agent/);
    const hint = card.getByRole('note');
    await hint.waitFor();
    expect(await hint.textContent()).toMatch(/keys 1–3 go there\. Press Tab to leave the box/);
    await shot(page, 'approval-typing-hint');
    // A number typed there is text, not an answer.
    await page.keyboard.press('1');
    expect(await box.inputValue()).toBe('a draft I am writing1');
    expect(await pendingOf(id)).toHaveLength(1);
    // Out of the box: the hint goes, and 1 answers.
    await page.keyboard.press('Tab');
    await hint.waitFor({ state: 'detached' });
    await page.keyboard.press('1');
    await card.waitFor({ state: 'detached', timeout: 30_000 });
    expect(await pendingOf(id)).toHaveLength(0);
    expect(currentId(page)).toBe(id);
    expect(w.errors).toEqual([]);
  });
});
