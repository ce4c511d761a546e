import { describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { shot } from './browser.js';
import { currentId, newSession, send, webSuite, type World } from './helpers.js';

/**
 * Issue 38 item 3 in the web UI: when Hermes (compression.in_place false) continues a compressed
 * conversation in a new session row, the header shows "compressed ×N" next to the context ring —
 * live (the rotation's session_info_update) and after a reload (the stored thread meta). Item 4:
 * a `delegate_task` call is drawn as a subagent lane.
 */
describe('web: Hermes lineage (header) and subagents (lanes)', { timeout: 120_000 }, () => {
  let w: World;
  let page: Page;
  webSuite(
    'hermes-lineage',
    {
      hermes: true,
      hermesConfig: 'compression:\n  enabled: true\n  in_place: false\n',
      config: { defaultProvider: 'hermes' },
    },
    (x, p) => ((w = x), (page = p)),
  );

  it('no marker before a compression; "compressed ×1" with the Hermes ids once Hermes rotated, kept across a reload', async () => {
    await newSession(page);
    await send(page, 'hello one');
    await page.locator('.msg.agent').first().waitFor({ timeout: 30_000 });
    const marker = page.locator('.session-header [data-testid="compressed-marker"]');
    expect(await marker.count()).toBe(0);

    await send(page, 'COMPRESSME now');
    await marker.waitFor({ timeout: 30_000 });
    expect(await marker.textContent()).toBe('compressed ×1');
    const tip = (await marker.getAttribute('title')) ?? '';
    expect(tip).toMatch(
      /^Hermes compressed this conversation 1× and continues it in \d{8}_\d{6}_[0-9a-f]{6} \(root [0-9a-f-]{36}, parent [0-9a-f-]{36}\)$/,
    );
    // Next to the context ring, in the header's controls.
    expect(await page.locator('.sh-controls .ctx + [data-testid="compressed-marker"]').count()).toBe(1);
    // The sidebar row says it too, with the ids on hover (the session summary's hermesLineage).
    const row = page.locator(`[data-session="${currentId(page)}"] [data-testid="row-compressed"]`);
    await row.waitFor({ timeout: 30_000 });
    expect(await row.textContent()).toBe('compressed ×1');
    expect(await row.getAttribute('title')).toMatch(
      /^Hermes compressed this conversation 1× — root [0-9a-f-]{36}, parent [0-9a-f-]{36}, now \d{8}_\d{6}_[0-9a-f]{6}$/,
    );

    await shot(page, 'hermes-compressed-marker');

    await page.reload();
    await marker.waitFor({ timeout: 30_000 });
    expect(await marker.textContent()).toBe('compressed ×1');
    expect(w.errors).toEqual([]);
  });

  it('delegate_task is a subagent lane: running in the background, its goal and delegation id, and why nothing more comes', async () => {
    await newSession(page);
    await send(page, 'DELEGATE the notes reading');
    const lane = page.locator('.subagent-lane');
    await lane.waitFor({ timeout: 30_000 });
    await expect
      .poll(() => lane.locator('.subagent-heading').textContent(), { timeout: 30_000 })
      .toBe('Subagent running in the background');
    expect(await lane.locator('.subagent-goals li').allTextContents()).toEqual([
      `CHILDTASK: read notes.txt in ${w.served.project} and report its first line`,
    ]);
    expect(await lane.locator('.subagent-id').textContent()).toMatch(/^deleg_[0-9a-f]{8}$/);
    expect(await lane.locator('.subagent-note').textContent()).toMatch(
      /Hermes does not send the subagent's progress over ACP/,
    );
    // Not also a plain tool card; the lane folds away like one.
    expect(await page.locator('.tool-card').count()).toBe(0);
    await page.locator('.msg.agent', { hasText: 'Delegation launched.' }).waitFor({ timeout: 30_000 });
    await shot(page, 'hermes-subagent-lane');
    await lane.locator('summary').click();
    expect(await lane.getAttribute('open')).toBeNull();
    expect(w.errors).toEqual([]);
  });
});
