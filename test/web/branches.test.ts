import { afterAll, afterEach, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import type { ServerClient } from '../../src/server/client/index.js';
import { shot } from './browser.js';
import { newSession, openPage, openProject, send, world, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

/**
 * Issue 14 in the web UI: edit an earlier user message and resend (a new branch), move between
 * the versions of that message (‹ i/n ›), continue the old branch, and continue the conversation
 * with another agent. What each agent received is read from the server's wire log.
 */

/** The text of every session/prompt the session's agent received, in order. */
async function promptsSent(api: ServerClient, id: string): Promise<string[]> {
  const { frames } = await api.api.wireLog({ params: { id }, query: { limit: 5000 } });
  return frames.flatMap((f) => {
    const m = f.msg as { method?: string; params?: { prompt?: { type: string; text?: string }[] } };
    return f.dir === 'client->agent' && m.method === 'session/prompt'
      ? [(m.params?.prompt ?? []).map((b) => b.text ?? '').join('\n')]
      : [];
  });
}

async function userTexts(api: ServerClient, id: string): Promise<string[]> {
  const { snapshot } = await api.api.snapshot({ params: { id } });
  return (snapshot.thread.entries as { kind: string; text?: string }[])
    .filter((e) => e.kind === 'user_message')
    .map((e) => e.text ?? '');
}

/** Waits until the session holds `users` user messages, each answered, and no turn runs. */
async function answered(api: ServerClient, id: string, users: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const { snapshot } = await api.api.snapshot({ params: { id } });
        const kinds = (snapshot.thread.entries as { kind: string }[]).map((e) => e.kind);
        const u = kinds.filter((k) => k === 'user_message').length;
        return (
          snapshot.turnId === undefined &&
          u === users &&
          kinds.lastIndexOf('assistant_message') > kinds.lastIndexOf('user_message')
        );
      },
      { timeout: 60_000 },
    )
    .toBe(true);
}

const currentId = (page: Page): string =>
  decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);

async function movedFrom(page: Page, id: string): Promise<string> {
  await page.waitForURL((u) => /#\/s\//.test(u.href) && !u.href.includes(`/s/${encodeURIComponent(id)}`));
  await page.getByLabel('Message to the agent').waitFor();
  return currentId(page);
}

describe('web: branches (edit and resend, versions, continue elsewhere)', { timeout: 180_000 }, () => {
  let w: World | undefined;
  let page: Page | undefined;
  afterAll(async () => w?.stop());
  afterEach(async (ctx) => {
    if (page && ctx.task.result?.state === 'fail') await shot(page, `FAIL-branches-${ctx.task.name.slice(0, 20)}`);
  });

  it('edit an earlier message → a new branch the agent gets with what came before; ‹ › switches; the old branch continues', async () => {
    w = await world({ config: { defaultProvider: 'demo', agents: { fake: { ...sdkAgent(), label: 'Fake agent' } } } });
    page = await openPage(w);
    await openProject(page, w.served.project);
    const id = await newSession(page);
    await send(page, 'first question about rivers');
    await answered(w.api, id, 1);
    await send(page, 'second question about lakes');
    await answered(w.api, id, 2);

    const thread = page.getByTestId('thread');
    const userMsg = (text: string) => thread.locator('.msg.user', { hasText: text });
    await userMsg('second question about lakes').getByRole('button', { name: 'Edit message' }).click();
    const box = page.getByLabel('Edited message');
    expect(await box.inputValue()).toBe('second question about lakes');
    await box.fill('second question about seas');
    await shot(page, 'branch-editing');
    await page.getByRole('button', { name: 'Send as a new branch' }).click();

    const b = await movedFrom(page, id);
    await answered(w.api, b, 2);
    // The branch's agent got the first exchange as context and the edited message, not the old one.
    const sent = await promptsSent(w.api, b);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('first question about rivers');
    expect(sent[0]).toContain('second question about seas');
    expect(sent[0]).not.toContain('lakes');
    expect(await userTexts(w.api, b)).toEqual(['first question about rivers', 'second question about seas']);
    // The page: where it branched, and the edited message as version 2 of 2.
    await thread.locator('[data-code="branched"]').waitFor();
    await userMsg('second question about seas').getByLabel('Version 2 of 2').waitFor();
    expect(
      await userMsg('first question about rivers').getByRole('group', { name: 'Versions of this message' }).count(),
    ).toBe(0);
    await shot(page, 'branch-switcher');

    // ‹ goes to the first version: the old branch, as it was.
    await userMsg('second question about seas').getByRole('button', { name: 'Previous version' }).click();
    await page.waitForURL((u) => u.href.endsWith(`/s/${encodeURIComponent(id)}`));
    await userMsg('second question about lakes').getByLabel('Version 1 of 2').waitFor();
    expect(await thread.locator('.msg.user', { hasText: 'seas' }).count()).toBe(0);

    // The old branch continues: its own agent gets the next message alone (it has the context already).
    await send(page, 'third question');
    await answered(w.api, id, 3);
    expect(await userTexts(w.api, id)).toEqual([
      'first question about rivers',
      'second question about lakes',
      'third question',
    ]);
    expect(await promptsSent(w.api, id)).toEqual([
      'first question about rivers',
      'second question about lakes',
      'third question',
    ]);
    await userMsg('third question').waitFor();
    await shot(page, 'branch-old-continued');

    // › goes forward again; editing the edited message once more makes a third sibling of the same point.
    await userMsg('second question about lakes').getByRole('button', { name: 'Next version' }).click();
    await page.waitForURL((u) => u.href.endsWith(`/s/${encodeURIComponent(b)}`));
    await userMsg('second question about seas').getByRole('button', { name: 'Edit message' }).click();
    await page.getByLabel('Edited message').fill('second question about oceans');
    await page.getByLabel('Edited message').press('Control+Enter');
    const c = await movedFrom(page, b);
    await answered(w.api, c, 2);
    await userMsg('second question about oceans').getByLabel('Version 3 of 3').waitFor();
    const tree = await w.api.api.branches({ params: { id: c } });
    expect(tree.tree.id).toBe(id);
    expect(tree.tree.children.map((x) => [x.id, x.reason])).toEqual([
      [b, 'rewind'],
      [c, 'rewind'],
    ]);
    expect((await promptsSent(w.api, c))[0]).toContain('second question about oceans');
    expect((await promptsSent(w.api, c))[0]).not.toContain('seas');
    expect(w.errors).toEqual([]);
  });

  it('continue with another agent: a branch in that agent, seeded with the conversation; the thread shows where the agent changed', async () => {
    w ??= await world({
      config: { defaultProvider: 'demo', agents: { fake: { ...sdkAgent(), label: 'Fake agent' } } },
    });
    page ??= await openPage(w);
    await openProject(page, w.served.project);
    const id = await newSession(page);
    await send(page, 'a question for the demo agent');
    await answered(w.api, id, 1);

    // In the header's ⋯ menu: "Continue with another agent…" opens the agents.
    await page.getByRole('button', { name: 'More actions' }).click();
    await page.getByRole('menuitem', { name: /^Continue with another agent/ }).click();
    await page
      .getByRole('menu', { name: 'Continue with another agent' })
      .getByRole('menuitem', { name: /^Fake agent/ })
      .click();
    const f = await movedFrom(page, id);
    expect((await w.api.api.snapshot({ params: { id: f } })).snapshot.session.provider).toBe('fake');
    const thread = page.getByTestId('thread');
    const branched = thread.locator('[data-code="branched"]');
    await branched.getByText('continued with Fake agent').waitFor();
    // The earlier conversation is in the thread, above where the agent changed.
    await thread.locator('.msg.user', { hasText: 'a question for the demo agent' }).waitFor();

    await send(page, 'now over to you');
    await answered(w.api, f, 2);
    const sent = await promptsSent(w.api, f);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain('a question for the demo agent');
    expect(sent[0]).toContain('now over to you');
    await thread.locator('[data-code="history_seeded"]').waitFor();
    await shot(page, 'branch-continue-elsewhere');
    // The demo session is untouched, and the notice leads back to it.
    expect(await promptsSent(w.api, id)).toEqual(['a question for the demo agent']);
    await branched.getByRole('link', { name: 'Open the earlier branch' }).click();
    await page.waitForURL((u) => u.href.endsWith(`/s/${encodeURIComponent(id)}`));
    await thread.locator('.msg.user', { hasText: 'a question for the demo agent' }).waitFor();
    expect(w.errors).toEqual([]);
  });
});
