/**
 * A host dies, nothing is lost (issue 39 item 4), in Chromium: two `talaria serve` hosts on one
 * throwaway PostgreSQL, the demo agent on both. A session on B with two committed turns (B's HTTP
 * API); A's page for it offers nothing while B is up; kill -9 of B; once B's (test-short) lease
 * runs out A's page says "host offline", both turns read on A (thread, export), and "Continue
 * here" seeds the conversation into a new session on A whose next prompt completes. B's frames
 * are all in the store: seq 1..N, no gap, the same N as B served before it died.
 */
import WebSocket from 'ws';
import { describe, expect, it } from 'vitest';
import { connectServer, type ServerClient, type WebSocketCtor } from '../../src/server/client/index.js';
import { fleetDatabase, type FleetHost } from '../fleet/fleet-serve.js';
import { webFleetSuite } from './fleet-suite.js';
import { tempDir } from '../cli/helpers.js';
import { axeViolations, goHash } from './axe.js';
import { PHONE, shot } from './browser.js';
import { WEB_ROOT } from './build.js';

const suite = webFleetSuite();
const fleet = suite.fleet;

async function serve(url: string, name: string): Promise<FleetHost & { api: ServerClient }> {
  const h = await fleet.start(url, `web-cont-${name}`, { name, env: { TALARIA_WEB_ROOT: WEB_ROOT } });
  return { ...h, api: connectServer(h.origin, h.token, { WebSocket: WebSocket as unknown as WebSocketCtor }) };
}

/** Waits until the session holds `users` user messages, each answered, and no turn runs. */
async function answered(api: ServerClient, id: string, users: number): Promise<void> {
  await expect
    .poll(
      async () => {
        const { snapshot } = await api.api.snapshot({ params: { id } });
        const kinds = (snapshot.thread.entries as { kind: string }[]).map((e) => e.kind);
        return (
          snapshot.turnId === undefined &&
          kinds.filter((k) => k === 'user_message').length === users &&
          kinds.lastIndexOf('assistant_message') > kinds.lastIndexOf('user_message')
        );
      },
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** Every wire frame of a session, in pages. */
async function frames(api: ServerClient, id: string): Promise<number[]> {
  const seqs: number[] = [];
  let after: number | undefined;
  for (;;) {
    const r = await api.api.wireLog({ params: { id }, query: { limit: 5000, ...(after ? { after } : {}) } });
    seqs.push(...r.frames.map((f) => f.seq));
    if (r.next === undefined || r.frames.length === 0) return seqs;
    after = r.next;
  }
}

async function promptsSent(api: ServerClient, id: string): Promise<string[]> {
  const { frames: fs } = await api.api.wireLog({ params: { id }, query: { limit: 5000 } });
  return fs.flatMap((f) => {
    const m = f.msg as { method?: string; params?: { prompt?: { text?: string }[] } };
    return f.dir === 'client->agent' && m.method === 'session/prompt'
      ? [(m.params?.prompt ?? []).map((b) => b.text ?? '').join('\n')]
      : [];
  });
}

const FIRST = 'the first question from box-b';
const SECOND = 'the second question from box-b';

describe('web: a host dies, nothing is lost; continue here', { timeout: 180_000 }, () => {
  it('kill -9 of B: A shows "host offline", both turns read, "Continue here" seeds a session on A; 0 frames lost', async () => {
    const url = fleetDatabase(suite.cluster, 'webcont');
    const a = await serve(url, 'box-a');
    const b = await serve(url, 'box-b');
    const project = tempDir('web-cont-project');

    // Two committed turns on B, through B's own HTTP API.
    const first = await b.api.api.run({ body: { path: project, provider: 'demo', text: FIRST } });
    const id = first.snapshot.session.id;
    await answered(b.api, id, 1);
    await b.api.api.run({ body: { session: id, text: SECOND } });
    await answered(b.api, id, 2);
    const servedByB = await frames(b.api, id);
    expect(servedByB.length).toBeGreaterThan(0);

    // While B is up, A shows B's session and offers nothing to take it over.
    const page = await suite.browser.newPage({ viewport: { width: 1440, height: 900 }, colorScheme: 'light' });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(a.link);
    await page.locator('.pill-host', { hasText: 'box-b · idle' }).waitFor({ timeout: 20_000 });
    await page.goto(`${a.link.split('#')[0]}#/s/${encodeURIComponent(id)}`);
    const thread = page.getByTestId('thread');
    await thread.locator('.msg.user', { hasText: SECOND }).waitFor();
    expect(await page.locator('.host-offline').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Continue here' }).count()).toBe(0);

    b.serve.child.kill('SIGKILL');
    await b.serve.done;
    // The lease runs out with no write: A's view notices, /ws says fleet.updated, the page says so.
    const banner = page.locator('.host-offline');
    await banner.waitFor({ timeout: 15_000 });
    await expect
      .poll(() => banner.getByRole('status').textContent())
      .toMatch(/^Running on box-b — host offline since .+\. Every saved turn is here\.$/);
    // Both committed turns read on A: the thread, the transcript, the wire log (seq 1..N, no gap).
    await thread.locator('.msg.user', { hasText: FIRST }).waitFor();
    await thread.locator('.msg.user', { hasText: SECOND }).waitFor();
    expect(await thread.locator('.msg.agent').count()).toBeGreaterThanOrEqual(2);
    const md = await (
      await fetch(`${a.link.split('#')[0]}api/sessions/${id}/export?format=md`, {
        headers: { authorization: `Bearer ${a.link.split('#token=')[1]}` },
      })
    ).text();
    expect(md).toContain(FIRST);
    expect(md).toContain(SECOND);
    const onA = await frames(a.api, id);
    expect(onA).toEqual(servedByB);
    expect(onA).toEqual(Array.from({ length: onA.length }, (_, i) => i + 1));

    expect(await axeViolations(page)).toEqual([]);
    await shot(page, 'fleet-host-offline-session');
    const phone = await suite.browser.newPage(PHONE);
    await phone.goto(a.link);
    await phone.locator('.pill-host').first().waitFor({ state: 'attached' });
    await goHash(phone, `#/s/${encodeURIComponent(id)}`);
    await phone.locator('.host-offline').waitFor({ timeout: 15_000 });
    expect(await axeViolations(phone)).toEqual([]);
    await shot(phone, 'fleet-host-offline-session-phone');
    await phone.close();

    // Continue here: the session's own agent (the demo, ready on A), seeded with the conversation.
    await page.getByRole('button', { name: 'Continue here' }).click();
    await page.waitForURL((u) => /#\/s\//.test(u.href) && !u.href.includes(encodeURIComponent(id)));
    const cont = decodeURIComponent(new URL(page.url()).hash.replace(/^#\/s\//, '').split('/')[0]!);
    const { snapshot } = await a.api.api.snapshot({ params: { id: cont } });
    expect(snapshot.session.provider).toBe('demo');
    expect(snapshot.session.branch).toMatchObject({ parentId: id, kind: 'continue' });
    await thread.locator('[data-code="branched"]').waitFor();
    await thread.locator('.msg.user', { hasText: FIRST }).waitFor();
    expect(await page.locator('.host-offline').count()).toBe(0);
    await page.getByLabel('Message to the agent').fill('carry on here on box-a');
    await page.getByLabel('Message to the agent').press('Enter');
    await answered(a.api, cont, 3);
    const sent = await promptsSent(a.api, cont);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toContain(FIRST);
    expect(sent[0]).toContain(SECOND);
    expect(sent[0]).toContain('carry on here on box-a');
    // The new session is A's: listed as this host's, live.
    const listed = (await a.api.api.listSessions({ query: { fleet: 'true' } })).sessions.find((s) => s.id === cont);
    expect(listed?.host).toMatchObject({ name: 'box-a', self: true });
    // B's session is untouched by the continuation: still its N frames.
    expect(await frames(a.api, id)).toEqual(servedByB);
    expect(errors).toEqual([]);
    await page.close();
  });
});
