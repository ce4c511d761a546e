import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, send, webSuite, type World } from './helpers.js';
import { sdkAgent } from './serve.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** The Hermes emulator's agent processes started with this HERMES_HOME (not the server, which has it in its env too). */
function hermesPids(home: string): number[] {
  const out: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      // `hermes acp` (the agent), not a readiness probe (`acp --check`, `--version`).
      if (
        /emulator\.(ts|mjs)\0acp\0/.test(cmd) &&
        !cmd.includes('--check') &&
        readFileSync(`/proc/${d}/environ`, 'utf8').split('\0').includes(`HERMES_HOME=${home}`)
      )
        out.push(Number(d));
    } catch {
      /* gone, or not ours */
    }
  }
  return out;
}

/** Which row of the thread an element is in (the list is virtualized: rows carry their entry index). */
const rowOf = async (l: Locator): Promise<number> =>
  Number(await l.locator('xpath=ancestor::*[@data-index][1]').getAttribute('data-index'));

/** Notices sit in the thread where they happened: after the message that caused them, before what came next. */
describe('web: notices where they happened', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'notices',
    { hermes: true, config: { defaultProvider: 'hermes', agents: { fake: { ...sdkAgent(), label: 'Fake agent' } } } },
    (x, p) => ((w = x), (page = p)),
  );

  const notice = (code: string): Locator => page.locator(`.notice[data-code="${code}"]`);
  const user = (text: string): Locator => page.locator('.msg.user', { hasText: text }).last();

  it('image described: Hermes without a vision model says so under the message with the image', async () => {
    await newSession(page);
    await page
      .locator('input[type=file][aria-label="Image file"]')
      .setInputFiles({ name: 'dot.png', mimeType: 'image/png', buffer: PNG });
    await page.getByRole('list', { name: 'Attached images' }).getByRole('img', { name: 'dot.png' }).waitFor();
    await send(page, 'what is in this picture');
    await notice('image_described').waitFor({ timeout: 30_000 });
    expect(await notice('image_described').textContent()).toMatch(/not marked vision-capable/);
    expect(await rowOf(notice('image_described'))).toBeGreaterThan(await rowOf(user('what is in this picture')));
    await shot(page, 'notice-image-described');
  });

  it('context overflow, then recovered: the error and the recovery under the message that overflowed, the reseed before the next answer', async () => {
    await newSession(page);
    await send(page, 'OVERFLOW now');
    await notice('overflow_recovery').waitFor({ timeout: 30_000 });
    const asked = await rowOf(user('OVERFLOW now'));
    expect(await rowOf(notice('context_overflow'))).toBeGreaterThan(asked);
    expect(await rowOf(notice('overflow_recovery'))).toBeGreaterThan(await rowOf(notice('context_overflow')));
    await send(page, 'are you back');
    await notice('context_reseeded').waitFor({ timeout: 30_000 });
    await expect.poll(() => page.locator('[data-kind="user"]').count()).toBe(2);
    expect(await rowOf(notice('context_reseeded'))).toBeGreaterThan(await rowOf(user('are you back')));
    await shot(page, 'notice-overflow-recovered');
  });

  it('MCP server withheld: a session started with an HTTP MCP server the agent cannot take opens with the notice first', async () => {
    const ws = (await w.api.api.workspaces()).workspaces[0]!;
    const { snapshot } = await w.api.api.createSession({
      params: { id: ws.id },
      body: {
        provider: 'fake',
        mcpServers: [{ type: 'http', name: 'docs', url: 'http://127.0.0.1:9/mcp', headers: [] }],
      },
    });
    await page.locator(`[data-session="${snapshot.session.id}"]`).click();
    await notice('mcp_server_withheld').waitFor({ timeout: 20_000 });
    expect(await notice('mcp_server_withheld').textContent()).toMatch(/MCP server "docs" \(http\) was not sent/);
    await send(page, 'hello');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 20_000 })
      .toContain('echo: hello');
    expect(await rowOf(notice('mcp_server_withheld'))).toBeLessThan(await rowOf(user('hello')));
    await shot(page, 'notice-mcp-withheld');
  });

  it('agent restarted: the agent process dies mid-turn; the thread says so under the next message, which restarted it', async () => {
    const id = await newSession(page);
    await send(page, 'before the crash');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('before the crash');
    // A real crash mid-turn: the Hermes emulator of this server (found by its HERMES_HOME) is killed.
    await send(page, 'SLOW turn');
    await page.getByRole('button', { name: /^Stop/ }).waitFor();
    const pids = hermesPids(join(w.served.home, 'hermes'));
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(pid, 'SIGKILL');
    await page.getByText(/Turn ended: error — agent was killed by SIGKILL/).waitFor({ timeout: 30_000 });
    await send(page, 'after the crash');
    await expect
      .poll(() => page.locator('.msg.agent').last().textContent(), { timeout: 30_000 })
      .toContain('after the crash');
    const restarted = notice('agent_restarted');
    await restarted.waitFor();
    expect(await restarted.textContent()).toMatch(/Hermes.* was restarted \(its process stopped\)/);
    // Under the message whose sending restarted the agent, before its answer.
    expect(await rowOf(restarted)).toBeGreaterThan(await rowOf(user('after the crash')));
    expect(await rowOf(restarted)).toBeLessThan(await rowOf(page.locator('.msg.agent').last()));
    expect(hermesPids(join(w.served.home, 'hermes')).some((p) => pids.includes(p))).toBe(false);
    expect(currentId(page)).toBe(id);
    await shot(page, 'notice-agent-restarted');
    expect(w.errors).toEqual([]);
  });
});
