import { describe, it, expect } from 'vitest';
import { SessionRouter, type FrameTarget, type Update } from '../../src/session/router.js';
import type { Frame, RawMessage } from '../../src/protocol/types.js';

/** Frame attribution, table by table: what each session's log receives, in order (one connection per router). */
let t = 0;
const frame = (dir: Frame['dir'], m: RawMessage): Frame => {
  const msg = { jsonrpc: '2.0', ...m };
  return { dir, t_ms: ++t, msg, raw: JSON.stringify(msg) };
};
const out = (msg: RawMessage) => frame('client->agent', msg);
const inn = (msg: RawMessage) => frame('agent->client', msg);
const update = (sessionId: string, text: string) =>
  inn({
    method: 'session/update',
    params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } },
  });

/** A session stand-in: its wire log and the updates its thread got. */
function sink(): FrameTarget & { got: Frame[]; updates: Update[]; labels(): string[] } {
  const got: Frame[] = [];
  const updates: Update[] = [];
  return {
    got,
    updates,
    receiveFrame: (f) => void got.push(f),
    receiveUpdate: (u) => void updates.push(u),
    labels: () => got.map(label),
  };
}

/** A short readable name for a frame. */
function label(f: Frame): string {
  const m = f.msg;
  const p = (m.params ?? {}) as { update?: { content?: { text?: string } } };
  if (m.method === 'session/update') return `update:${p.update?.content?.text}`;
  if (m.method) return `${m.id !== undefined ? 'req' : 'note'}:${m.method}`;
  return `res:${String(m.id)}`;
}

function handshake(r: SessionRouter, name = 'agent') {
  r.frame(out({ id: 0, method: 'initialize', params: { protocolVersion: 1 } }));
  r.frame(
    inn({ id: 0, result: { protocolVersion: 1, agentInfo: { name }, agentCapabilities: { loadSession: true } } }),
  );
}

describe('SessionRouter', () => {
  it('session/new: the held request, early updates and the answer go to the new session, after the handshake', () => {
    const r = new SessionRouter();
    handshake(r);
    r.frame(out({ id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }));
    r.frame(update('A', 'early'));
    r.frame(inn({ id: 1, result: { sessionId: 'A' } }));
    expect(r.early.size).toMatchObject({ sessions: 1, frames: 3 });
    const a = sink();
    r.attach('A', a);
    expect(a.labels()).toEqual(['req:initialize', 'res:0', 'req:session/new', 'update:early', 'res:1']);
    // The early update reached the thread too, once, after its frame.
    expect(a.updates.map((u) => (u.content as { text: string }).text)).toEqual(['early']);
    expect(r.early.size.frames).toBe(0);
    r.frame(out({ id: 2, method: 'session/prompt', params: { sessionId: 'A', prompt: [] } }));
    r.frame(update('A', 'hi'));
    r.frame(inn({ id: 2, result: { stopReason: 'end_turn' } }));
    expect(a.labels().slice(5)).toEqual(['req:session/prompt', 'update:hi', 'res:2']);
  });

  it('two sessions on one connection: interleaved frames are split by sessionId and by response id', () => {
    const r = new SessionRouter();
    handshake(r);
    const a = sink();
    const b = sink();
    r.attach('A', a);
    r.attach('B', b);
    r.frame(out({ id: 5, method: 'session/prompt', params: { sessionId: 'A' } }));
    r.frame(out({ id: 6, method: 'session/prompt', params: { sessionId: 'B' } }));
    r.frame(update('B', 'b1'));
    r.frame(update('A', 'a1'));
    // The agent asks A for permission; our answer carries only the id.
    r.frame(inn({ id: 0, method: 'session/request_permission', params: { sessionId: 'A', options: [] } }));
    r.frame(out({ id: 0, result: { outcome: { outcome: 'cancelled' } } }));
    r.frame(inn({ id: 6, result: { stopReason: 'end_turn' } }));
    r.frame(out({ method: 'session/cancel', params: { sessionId: 'A' } }));
    r.frame(inn({ id: 5, result: { stopReason: 'cancelled' } }));
    expect(a.labels()).toEqual([
      'req:initialize',
      'res:0',
      'req:session/prompt',
      'update:a1',
      'req:session/request_permission',
      'res:0',
      'note:session/cancel',
      'res:5',
    ]);
    expect(b.labels()).toEqual(['req:initialize', 'res:0', 'req:session/prompt', 'update:b1', 'res:6']);
  });

  it('frames without a session go to every session attached to the connection; none attached: not kept', () => {
    const r = new SessionRouter();
    handshake(r);
    r.frame(out({ id: 1, method: 'session/list', params: {} }));
    r.frame(inn({ id: 1, result: { sessions: [] } }));
    const a = sink();
    const b = sink();
    r.attach('A', a);
    r.attach('B', b);
    r.frame(out({ id: 2, method: 'session/list', params: {} }));
    r.frame(inn({ id: 2, result: { sessions: [] } }));
    for (const s of [a, b]) expect(s.labels()).toEqual(['req:initialize', 'res:0', 'req:session/list', 'res:2']);
  });

  it('a respawn is a new connection: a session moved to it gets the new handshake before its session/load', () => {
    const first = new SessionRouter();
    handshake(first, 'first');
    const a = sink();
    first.attach('A', a);
    first.detach('A', a);
    const second = new SessionRouter();
    handshake(second, 'second');
    second.attach('A', a);
    second.frame(out({ id: 1, method: 'session/load', params: { sessionId: 'A', cwd: '/w', mcpServers: [] } }));
    second.frame(update('A', 'replayed'));
    second.frame(inn({ id: 1, result: {} }));
    expect(a.labels()).toEqual([
      'req:initialize',
      'res:0',
      'req:initialize',
      'res:0',
      'req:session/load',
      'update:replayed',
      'res:1',
    ]);
    expect((a.got[3]!.msg.result as { agentInfo: { name: string } }).agentInfo.name).toBe('second');
  });

  it('JSON-RPC ids restart per process: an answer is matched against its own connection only', () => {
    // The old process drains A's prompt (id 2) while the new one runs B's prompt, also id 2.
    const old = new SessionRouter();
    const fresh = new SessionRouter();
    handshake(old);
    handshake(fresh);
    const a = sink();
    const b = sink();
    old.attach('A', a);
    fresh.attach('B', b);
    old.frame(out({ id: 2, method: 'session/prompt', params: { sessionId: 'A' } }));
    fresh.frame(out({ id: 2, method: 'session/prompt', params: { sessionId: 'B' } }));
    old.frame(inn({ id: 2, result: { stopReason: 'end_turn', _meta: { who: 'A' } } }));
    fresh.frame(inn({ id: 2, result: { stopReason: 'end_turn', _meta: { who: 'B' } } }));
    const answers = (s: ReturnType<typeof sink>) =>
      s.got
        .filter((f) => f.msg.result !== undefined && f.msg.id === 2)
        .map((f) => (f.msg.result as { _meta: { who: string } })._meta.who);
    expect(answers(a)).toEqual(['A']);
    expect(answers(b)).toEqual(['B']);
  });

  it('session/fork files the request under the new session, not the source; a failed setup belongs to nobody', () => {
    const r = new SessionRouter();
    handshake(r);
    const src = sink();
    r.attach('A', src);
    r.frame(out({ id: 1, method: 'session/fork', params: { sessionId: 'A', cwd: '/w' } }));
    r.frame(inn({ id: 1, result: { sessionId: 'F' } }));
    r.frame(out({ id: 2, method: 'session/new', params: { cwd: '/w' } }));
    r.frame(inn({ id: 2, error: { code: -32603, message: 'no' } }));
    expect(src.labels()).toEqual(['req:initialize', 'res:0']);
    const f = sink();
    r.attach('F', f);
    expect(f.labels()).toEqual(['req:initialize', 'res:0', 'req:session/fork', 'res:1']);
  });

  it('detach stops delivery; frames for it wait again (bounded) until attached; detaching another target is a no-op', () => {
    const r = new SessionRouter();
    handshake(r);
    const a = sink();
    r.attach('A', a);
    r.detach('A', a);
    r.frame(update('A', 'later'));
    expect(a.labels()).toEqual(['req:initialize', 'res:0']);
    expect(r.early.size.frames).toBe(1);
    const b = sink();
    r.attach('A', b);
    r.detach('A', a);
    r.frame(update('A', 'again'));
    expect(b.labels()).toEqual(['req:initialize', 'res:0', 'update:later', 'update:again']);
  });

  it('an ignored id is never routed nor held', () => {
    const r = new SessionRouter();
    handshake(r);
    r.frame(update('stray', 'x'));
    r.ignore('stray');
    r.frame(update('stray', 'y'));
    expect(r.early.size).toEqual({ sessions: 0, frames: 0, bytes: 0 });
  });
  it('a handshake frame after the stream started (authenticate) reaches a session before its next frame', () => {
    const r = new SessionRouter();
    handshake(r);
    const a = sink();
    r.attach('A', a);
    r.frame(update('A', 'one'));
    r.frame(update('A', 'two'));
    r.frame(out({ id: 7, method: 'authenticate', params: { methodId: 'key' } }));
    r.frame(inn({ id: 7, result: {} }));
    r.frame(update('A', 'three'));
    expect(a.labels()).toEqual([
      'req:initialize',
      'res:0',
      'update:one',
      'update:two',
      'req:authenticate',
      'res:7',
      'update:three',
    ]);
  });
});
