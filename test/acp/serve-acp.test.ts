/**
 * `/acp` on `talaria serve`: ACP over the SDK's WebSocket transport, in front of the proxy over the
 * server's harness. A session opened by an ACP client is a live server session: a `/ws` subscriber
 * sees the editor's turn, a turn prompted over HTTP streams to the editor, a permission answered in
 * the browser resolves the editor's question. The token (controller) is required.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { expectValidWire } from '../fakes/wire.js';
import { isEvent, serve, watching } from '../server/helpers.js';
import { agentText } from './helpers.js';
import { wsEditor } from './ws-client.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  clientInfo: { name: 'test-editor', version: '1' },
};
const acpUrl = (origin: string, q = 'agent=demo') => `${origin.replace(/^http/, 'ws')}/acp?${q}`;

/** The HTTP status a refused upgrade gets (and its body). */
function refused(url: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.on('open', () => reject(new Error('the upgrade was accepted')));
    ws.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on('error', () => undefined);
  });
}

describe.concurrent('/acp on talaria serve', () => {
  it('an ACP client drives a live server session: /ws sees its turn, an HTTP prompt streams to it, it outlives the client', async () => {
    const s = await serve();
    const ed = wsEditor(acpUrl(s.server.origin, `agent=demo&cwd=${encodeURIComponent(s.p.userHome)}`), s.server.token);
    const init = await ed.request<any>('initialize', INIT);
    expect(init.agentInfo).toMatchObject({ name: 'talaria' });
    expect(init.agentCapabilities).toMatchObject({ loadSession: true });
    const { sessionId } = await ed.request<any>('session/new', { cwd: s.p.userHome, mcpServers: [] });
    // Live on the server at once, and listed.
    expect(s.server.hub.get(sessionId)).toBeDefined();
    const { sessions } = await s.client.api.listSessions();
    expect(sessions.map((x) => x.id)).toContain(sessionId);

    const ui = await watching(s.server, sessionId);
    const r = await ed.request<any>('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'hello' }] });
    expect(r.stopReason).toBe('end_turn');
    await ui.wait(isEvent(sessionId, 'turn.ended'));
    expect(ui.events(sessionId).some((e) => e.type === 'entry.added')).toBe(true);

    // The browser prompts: the editor sees that turn stream too.
    const before = agentText(ed.updates, sessionId).length;
    await s.client.api.prompt({ params: { id: sessionId }, body: { text: 'hello again' } });
    await ui.next(isEvent(sessionId, 'turn.ended'));
    await ed.until(() => agentText(ed.updates, sessionId).length > before, 'the HTTP turn on the editor');
    expect(ed.updates.some((u) => u.sessionId === sessionId && u.update.sessionUpdate === 'user_message_chunk')).toBe(
      true,
    );

    // The editor leaves: the session stays live for the browser.
    ed.close();
    await s.server.close();
    ui.close();
    expectValidWire(ed.frames);
  });

  it('a permission answered in the browser resolves the editor turn (its question is withdrawn)', async () => {
    const s = await serve();
    writeFileSync(join(s.p.userHome, 'notes.txt'), 'one\n');
    const ed = wsEditor(acpUrl(s.server.origin, `agent=demo&cwd=${encodeURIComponent(s.p.userHome)}`), s.server.token);
    await ed.request('initialize', INIT);
    const { sessionId } = await ed.request<any>('session/new', { cwd: s.p.userHome, mcpServers: [] });
    // The editor never answers: the browser does.
    ed.onPermission = () => new Promise(() => undefined);
    const turn = ed.request<any>('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write made.txt hi there' }],
    });
    await ed.until(() => ed.permissions.length === 1, 'the permission question');
    const { pending } = await s.client.api.permissions({ params: { id: sessionId } });
    expect(pending).toHaveLength(1);
    const allow = (pending[0]!.options as { optionId: string; kind: string }[]).find((o) => o.kind === 'allow_once')!;
    await s.client.api.answerPermission({
      params: { id: sessionId, requestKey: pending[0]!.requestKey },
      body: { optionId: allow.optionId },
    });
    expect((await turn).stopReason).toBe('end_turn');
    await ed.until(() => ed.withdrawn.length === 1, 'the withdrawn question');
    ed.close();
    expectValidWire(ed.frames);
  });

  it('refuses without a token, with an observer token, and for an unknown agent; a wrong Host is refused too', async () => {
    const s = await serve();
    const url = acpUrl(s.server.origin);
    expect((await refused(url, {})).status).toBe(401);
    expect((await refused(url, { authorization: 'Bearer nope' })).status).toBe(401);
    const observer = s.server.tokens.addEphemeral('observer', 'test');
    const obs = await refused(url, { authorization: `Bearer ${observer.token}` });
    expect(obs.status).toBe(403);
    expect(obs.body).toMatch(/controller token/);
    const bad = await refused(acpUrl(s.server.origin, 'agent=nosuch'), { authorization: `Bearer ${s.server.token}` });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatch(/unknown agent 'nosuch'/);
    expect((await refused(url, { authorization: `Bearer ${s.server.token}`, host: 'evil.example:80' })).status).toBe(
      403,
    );
  });
});
