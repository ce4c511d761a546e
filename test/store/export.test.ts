import { describe, it, expect } from 'vitest';
import { createThread, reduce, snapshot, threadFromSnapshot, toMarkdown } from '../../src/thread/index.js';
import type { WireLogLine } from '../../src/protocol/types.js';
import {
  exportSessionFixture,
  exportSessionJson,
  exportSessionMarkdown,
  importFixture,
  StoreError,
  type FixtureProblem,
} from '../../src/store/index.js';
import { FIXTURE_NAMES, parsedLines, readFixture } from './helpers.js';
import { BACKENDS } from './backends.js';

/** What the CLI injects: rebuild a live thread from the snapshot, render it. */
const render = (snap: Parameters<typeof threadFromSnapshot>[0], s: { title?: string }) =>
  toMarkdown(threadFromSnapshot(snap), s.title !== undefined ? { title: s.title } : {});

/** A replay through the real reducer (what `talaria replay` does), for sessions without a stored thread. */
function replay(lines: WireLogLine[]) {
  const t = createThread();
  for (const l of lines) {
    const p = l.msg.params as { update?: { sessionUpdate: string } } | undefined;
    if (l.msg.method === 'session/update' && p?.update) reduce(t, { type: 'update', update: p.update });
  }
  return snapshot(t);
}

function errorOf(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreError);
    return e as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe.each(BACKENDS)('import and export ($name)', (backend) => {
  for (const name of FIXTURE_NAMES) {
    it(`imports ${name} as a new session and exports the same fixture`, () => {
      const store = backend.fresh();
      const text = readFixture(name);
      const s = importFixture(store, text);
      expect(store.sessions.get(s.id)).toEqual(s);
      const back = parsedLines(exportSessionFixture(store, s.id));
      const original = parsedLines(text);
      expect(back.length).toBe(original.length);
      back.forEach((line, i) => expect(line, `line ${i + 1}`).toEqual(original[i]));
    });
  }

  it('reads the agent, session id, cwd and first prompt from the recorded conversation', () => {
    const store = backend.fresh();
    const text = readFixture('main.ndjson');
    const lines = parsedLines(text) as WireLogLine[];
    const init = lines.find((l) => l.dir === 'agent->client' && l.msg.id === 1)!.msg.result as {
      agentInfo: { name: string };
    };
    const newReq = lines.find((l) => l.msg.method === 'session/new')!;
    const newRes = lines.find((l) => l.dir === 'agent->client' && l.msg.id === newReq.msg.id)!.msg.result as {
      sessionId: string;
    };
    const s = importFixture(store, text);
    expect(s.provider).toBe(init.agentInfo.name);
    expect(s.agentInfo).toEqual(init.agentInfo);
    expect(s.agentSessionId).toBe(newRes.sessionId);
    expect(s.cwd).toBe((newReq.msg.params as { cwd: string }).cwd);
    expect(s.title).toBeTruthy();
    const o = importFixture(store, text, { provider: 'hermes', cwd: '/elsewhere', title: 'Mine', id: 'fixed' });
    expect(o).toMatchObject({ id: 'fixed', provider: 'hermes', cwd: '/elsewhere', title: 'Mine' });
  });

  it('refuses a broken fixture whole (nothing stored), or skips bad lines when asked', () => {
    const store = backend.fresh();
    const good = readFixture('noauth.ndjson');
    const broken = good + '{"t_ms": 1, "dir": "up", "msg": {}}\nnot json\n';
    const err = errorOf(() => importFixture(store, broken));
    expect(err.code).toBe('invalid_argument');
    expect(err.message).toMatch(/line \d+: dir must be/);
    expect(store.sessions.list({ includeArchived: true })).toEqual([]);
    const problems: FixtureProblem[] = [];
    const s = importFixture(store, broken, { onBadLine: (p) => problems.push(p) });
    expect(problems.map((p) => p.error)).toEqual([
      expect.stringMatching(/^dir must be/),
      expect.stringMatching(/^not JSON/),
    ]);
    expect(store.wire.count(s.id)).toBe(parsedLines(good).length);
  });

  it('JSON export holds the session, turns, entries, thread meta, audit and wire', () => {
    const store = backend.fresh();
    const s = importFixture(store, readFixture('tools.ndjson'));
    const snap = replay(store.wire.read(s.id));
    store.entries.saveSnapshot(s.id, snap);
    store.turns.start(s.id, { turnId: 'turn-1', prompt: [{ type: 'text', text: 'go' }], startedAt: 1 });
    store.turns.end(s.id, { turnId: 'turn-1', stopReason: 'end_turn', endedAt: 2, durationMs: 1 });
    store.permissions.audit({ outcome: { outcome: 'cancelled' }, decidedBy: 'cancel', at: 3 }, s.id);
    const out = exportSessionJson(store, s.id);
    expect(out.format).toBe('talaria.session');
    expect(out.version).toBe(1);
    expect(out.session).toEqual(s);
    expect(out.turns).toHaveLength(1);
    expect(out.entries).toEqual(JSON.parse(JSON.stringify(snap.entries)));
    expect(out.thread?.plan).toEqual(JSON.parse(JSON.stringify(snap.plan)));
    expect(out.audit).toHaveLength(1);
    expect(out.wire).toEqual(parsedLines(readFixture('tools.ndjson')));
    // The whole export is plain JSON.
    expect(JSON.parse(JSON.stringify(out))).toEqual(out);
  });

  it('Markdown renders the stored thread through the injected renderer, or a rebuilt one', () => {
    const store = backend.fresh();
    const s = importFixture(store, readFixture('main.ndjson'), { title: 'Main session' });
    const snap = replay(store.wire.read(s.id));
    const expected = render(snap, { title: 'Main session' });
    expect(expected.startsWith('# Main session\n')).toBe(true);
    expect(expected.length).toBeGreaterThan(200);
    // No stored thread: the injected rebuild (a replay of the wire log) supplies it.
    expect(exportSessionMarkdown(store, s.id, render, { rebuild: replay })).toBe(expected);
    // Without a rebuild, an empty thread.
    expect(exportSessionMarkdown(store, s.id, render)).toBe('# Main session\n');
    store.entries.saveSnapshot(s.id, snap);
    expect(exportSessionMarkdown(store, s.id, render)).toBe(expected);
  });

  it('exports mask secrets, also in rows stored before masking existed', () => {
    const store = backend.fresh();
    const secret = 'sk-old-row-secret';
    const s = store.sessions.create({ provider: 'p', cwd: '/w' });
    const old = {
      jsonrpc: '2.0',
      id: 1,
      method: 'session/new',
      params: {
        cwd: '/w',
        mcpServers: [
          { type: 'http', name: 'h', url: 'https://x', headers: [{ name: 'Authorization', value: secret }] },
        ],
      },
    };
    // Written raw, the way a store from before masking holds it.
    store.wire.insertRaw(s.id, 1, 0, 'client->agent', JSON.stringify(old));
    store.wire.append(s.id, {
      t_ms: 1,
      dir: 'agent->client',
      msg: { jsonrpc: '2.0', id: 9, method: 'terminal/create', params: { env: [{ name: 'K', value: secret }] } },
    });
    expect(store.wire.rows(s.id)[1]!.msg).not.toContain(secret);
    const fixture = exportSessionFixture(store, s.id);
    expect(fixture).not.toContain(secret);
    expect(parsedLines(fixture)).toHaveLength(2);
    const json = exportSessionJson(store, s.id);
    expect(JSON.stringify(json)).not.toContain(secret);
    expect((json.wire[0]!.msg.params as { mcpServers: { headers: unknown }[] }).mcpServers[0]!.headers).toEqual([
      { name: 'Authorization', value: '[redacted]' },
    ]);
  });

  it('exports of an unknown session are not_found', () => {
    const store = backend.fresh();
    expect(errorOf(() => exportSessionJson(store, 'x')).code).toBe('not_found');
    expect(errorOf(() => exportSessionFixture(store, 'x')).code).toBe('not_found');
    expect(errorOf(() => exportSessionMarkdown(store, 'x', render)).code).toBe('not_found');
  });
});
