import { describe, it, expect } from 'vitest';
import { ConnectionRouter } from '../../src/harness/frame-router.js';
import type { Frame, RawMessage } from '../../src/protocol/types.js';

/** Frame attribution, table by table: what each session's log receives, in order. */
let t = 0;
const out = (msg: RawMessage): Frame => ({ dir: 'client->agent', t_ms: ++t, msg: { jsonrpc: '2.0', ...msg } });
const inn = (msg: RawMessage): Frame => ({ dir: 'agent->client', t_ms: ++t, msg: { jsonrpc: '2.0', ...msg } });
const update = (sessionId: string, text: string) => inn({ method: 'session/update', params: { sessionId, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } });

function sink() {
  const got: Frame[] = [];
  const fn = (f: Frame) => void got.push(f);
  const labels = () => got.map(label);
  return { fn, got, labels };
}

/** A short readable name for a frame. */
function label(f: Frame): string {
  const m = f.msg;
  const p = (m.params ?? {}) as { update?: { content?: { text?: string } } };
  if (m.method === 'session/update') return `update:${p.update?.content?.text}`;
  if (m.method) return `${m.id !== undefined ? 'req' : 'note'}:${m.method}`;
  return `res:${String(m.id)}`;
}

function handshake(r: ConnectionRouter, name = 'agent') {
  r.route(out({ id: 0, method: 'initialize', params: { protocolVersion: 1 } }));
  r.route(inn({ id: 0, result: { protocolVersion: 1, agentInfo: { name }, agentCapabilities: { loadSession: true } } }));
}

describe('ConnectionRouter', () => {
  it('session/new: the held request, early updates and the answer go to the new session, after the handshake', () => {
    const r = new ConnectionRouter();
    handshake(r);
    expect(r.info).toMatchObject({ agentInfo: { name: 'agent' }, agentCapabilities: { loadSession: true } });
    r.route(out({ id: 1, method: 'session/new', params: { cwd: '/w', mcpServers: [] } }));
    r.route(update('A', 'early'));
    r.route(inn({ id: 1, result: { sessionId: 'A' } }));
    expect(r.waitingFor('A')).toBe(3);
    const a = sink();
    r.claim('A', a.fn);
    expect(a.labels()).toEqual(['req:initialize', 'res:0', 'req:session/new', 'update:early', 'res:1']);
    r.route(out({ id: 2, method: 'session/prompt', params: { sessionId: 'A', prompt: [] } }));
    r.route(update('A', 'hi'));
    r.route(inn({ id: 2, result: { stopReason: 'end_turn' } }));
    expect(a.labels().slice(5)).toEqual(['req:session/prompt', 'update:hi', 'res:2']);
  });

  it('two sessions on one connection: interleaved frames are split by sessionId and by response id', () => {
    const r = new ConnectionRouter();
    handshake(r);
    const a = sink();
    const b = sink();
    r.claim('A', a.fn);
    r.claim('B', b.fn);
    r.route(out({ id: 5, method: 'session/prompt', params: { sessionId: 'A' } }));
    r.route(out({ id: 6, method: 'session/prompt', params: { sessionId: 'B' } }));
    r.route(update('B', 'b1'));
    r.route(update('A', 'a1'));
    // The agent asks A for permission; our answer carries only the id.
    r.route(inn({ id: 0, method: 'session/request_permission', params: { sessionId: 'A', options: [] } }));
    r.route(out({ id: 0, result: { outcome: { outcome: 'cancelled' } } }));
    r.route(inn({ id: 6, result: { stopReason: 'end_turn' } }));
    r.route(out({ method: 'session/cancel', params: { sessionId: 'A' } }));
    r.route(inn({ id: 5, result: { stopReason: 'cancelled' } }));
    expect(a.labels()).toEqual(['req:initialize', 'res:0', 'req:session/prompt', 'update:a1', 'req:session/request_permission', 'res:0', 'note:session/cancel', 'res:5']);
    expect(b.labels()).toEqual(['req:initialize', 'res:0', 'req:session/prompt', 'update:b1', 'res:6']);
  });

  it('frames without a session go to every session bound on that connection; none bound: not kept', () => {
    const r = new ConnectionRouter();
    handshake(r);
    r.route(out({ id: 1, method: 'session/list', params: {} }));
    r.route(inn({ id: 1, result: { sessions: [] } }));
    const a = sink();
    const b = sink();
    r.claim('A', a.fn);
    r.claim('B', b.fn);
    r.route(out({ id: 2, method: 'session/list', params: {} }));
    r.route(inn({ id: 2, result: { sessions: [] } }));
    for (const s of [a, b]) expect(s.labels()).toEqual(['req:initialize', 'res:0', 'req:session/list', 'res:2']);
  });

  it('a respawn: the next frame of a bound session is preceded by the new handshake (so its log replays)', () => {
    const r = new ConnectionRouter();
    handshake(r, 'first');
    const a = sink();
    r.claim('A', a.fn);
    handshake(r, 'second');
    expect(r.info?.agentInfo?.name).toBe('second');
    r.route(out({ id: 1, method: 'session/load', params: { sessionId: 'A', cwd: '/w', mcpServers: [] } }));
    r.route(update('A', 'replayed'));
    r.route(inn({ id: 1, result: {} }));
    expect(a.labels()).toEqual(['req:initialize', 'res:0', 'req:initialize', 'res:0', 'req:session/load', 'update:replayed', 'res:1']);
    expect((a.got[3]!.msg.result as { agentInfo: { name: string } }).agentInfo.name).toBe('second');
  });

  it('session/fork files the request under the new session, not the source; a failed setup belongs to nobody', () => {
    const r = new ConnectionRouter();
    handshake(r);
    const src = sink();
    r.claim('A', src.fn);
    r.route(out({ id: 1, method: 'session/fork', params: { sessionId: 'A', cwd: '/w' } }));
    r.route(inn({ id: 1, result: { sessionId: 'F' } }));
    r.route(out({ id: 2, method: 'session/new', params: { cwd: '/w' } }));
    r.route(inn({ id: 2, error: { code: -32603, message: 'no' } }));
    expect(src.labels()).toEqual(['req:initialize', 'res:0']);
    const f = sink();
    r.claim('F', f.fn);
    expect(f.labels()).toEqual(['req:initialize', 'res:0', 'req:session/fork', 'res:1']);
  });

  it('release stops delivery; frames for it wait again (bounded) until claimed', () => {
    const r = new ConnectionRouter();
    handshake(r);
    const a = sink();
    r.claim('A', a.fn);
    r.release('A', a.fn);
    r.route(update('A', 'later'));
    expect(a.labels()).toEqual(['req:initialize', 'res:0']);
    expect(r.waitingFor('A')).toBe(1);
    // Releasing with another sink is a no-op (a newer claim keeps its frames).
    const b = sink();
    r.claim('A', b.fn);
    r.release('A', a.fn);
    r.route(update('A', 'again'));
    expect(b.labels()).toEqual(['req:initialize', 'res:0', 'update:later', 'update:again']);
  });
});
