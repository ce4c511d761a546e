/**
 * One frame road (issue 36): what the editor gets through `talaria acp` and what the session's
 * thread holds agree, for any sequence of agent frames of one turn — tool calls with any statuses,
 * message and thought chunks with and without messageIds, a cancel at any point with late
 * updates after it, the turn's end, and updates after that. Real code all the way: frames go
 * through the session router into a Session, a SessionLink forwards to an EditorPeer (as lines or
 * as messages); no process.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EditorPeer } from '../../src/harness/acp/peer.js';
import { SessionLink } from '../../src/harness/acp/link.js';
import { acpStatus } from '../../src/harness/acp/setup.js';
import type { HarnessSession } from '../../src/harness/types.js';
import type { PermissionBroker } from '../../src/permission/broker.js';
import type { Frame, Logger } from '../../src/protocol/types.js';
import type { SessionPort } from '../../src/session/core.js';
import { SessionRouter, type Update } from '../../src/session/router.js';
import { Session } from '../../src/session/session.js';

const noop = (): void => {};
const logger: Logger = { debug: noop, info: noop, warn: noop, error: noop, child: () => logger } as unknown as Logger;
const broker = { cancelTurn: () => 0, cancelSession: () => 0 } as unknown as PermissionBroker;

type Step = { update: Update } | { readEnd: true };

const CHUNK_KINDS = ['agent_message_chunk', 'agent_thought_chunk', 'user_message_chunk'] as const;
const STATUSES = ['pending', 'in_progress', 'completed', 'failed'] as const;

const chunk = fc
  .record({
    kind: fc.constantFrom(...CHUNK_KINDS, 'agent_message_chunk', 'agent_thought_chunk'),
    text: fc.constantFrom('', 'a', 'bc', 'é "q"', '\\', '😀'),
    messageId: fc.option(fc.constantFrom('m1', 'm2', 'm3', ''), { nil: undefined, freq: 2 }),
  })
  .map(({ kind, text, messageId }): Update => ({
    sessionUpdate: kind,
    ...(messageId !== undefined ? { messageId } : {}),
    content: { type: 'text', text },
  }));
const call = fc
  .record({
    kind: fc.constantFrom('tool_call', 'tool_call_update', 'tool_call_update'),
    id: fc.constantFrom('t1', 't2', 't3'),
    status: fc.option(fc.constantFrom(...STATUSES), { nil: undefined, freq: 3 }),
  })
  .map(({ kind, id, status }): Update => ({
    sessionUpdate: kind,
    toolCallId: id,
    ...(kind === 'tool_call' ? { title: `run ${id}` } : {}),
    ...(status !== undefined ? { status } : {}),
  }));
/** What the quirk set (mapUpdate) turns into a message chunk, and an update that leaves the thread's messages alone. */
const other = fc.constantFrom<Update>(
  { sessionUpdate: 'x_say', text: 'said' },
  { sessionUpdate: 'usage_update', used: 1, size: 10 },
  { sessionUpdate: 'plan', entries: [] },
);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: chunk.map((update) => ({ update })) },
  { weight: 4, arbitrary: call.map((update) => ({ update })) },
  { weight: 1, arbitrary: other.map((update) => ({ update })) },
  { weight: 2, arbitrary: fc.constant({ readEnd: true as const }) },
);

const road = fc.record({
  before: fc.array(step, { maxLength: 25 }),
  /** Updates after a cancel (none: the turn is not cancelled). */
  cancelled: fc.option(fc.array(step, { maxLength: 12 }), { nil: undefined }),
  after: fc.array(step, { maxLength: 8 }),
  lines: fc.boolean(),
});

/** A session the test plays the agent of: its frames go through the router as the connection's tap and divert do. */
function open(lines: boolean) {
  let answer: (r: { stopReason: string }) => void = noop;
  const port = {
    request: (method: string) =>
      method === 'session/prompt' ? new Promise((resolve) => (answer = resolve)) : Promise.resolve({}),
    notify: () => Promise.resolve(),
    promptCaps: { image: false, audio: false, embeddedContext: false },
  } as unknown as SessionPort;
  const session = new Session({
    id: 'agent-1',
    cwd: '/w',
    port,
    broker,
    logger,
    // A quirk: the agent's vendor kind is a message chunk (no raw line then: the update is not what it sent).
    hooks: {
      mapUpdate: (u) =>
        u.sessionUpdate === 'x_say'
          ? { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'said' } }
          : u,
    },
  });
  const router = new SessionRouter<Session>();
  router.attach('agent-1', session);
  const got: Record<string, any>[] = [];
  const peer = new EditorPeer(
    (msg) => {
      if (msg.method === 'session/update') got.push(msg.params as Record<string, any>);
    },
    lines ? (line) => got.push((JSON.parse(line) as { params: Record<string, any> }).params) : undefined,
  );
  const hs = {
    id: 'talaria-1',
    session,
    thread: session.thread,
    catalog: session.catalog,
    subscribe: (fn: Parameters<Session['subscribe']>[0]) => session.subscribe(fn),
    answerPermission: noop,
  } as unknown as HarnessSession;
  const link = new SessionLink(hs, peer, logger, { terminal: true });
  const play = (steps: readonly Step[]) => {
    for (const s of steps) {
      if ('readEnd' in s) {
        router.readEnd();
        continue;
      }
      const msg = { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'agent-1', update: s.update } };
      router.frame({ dir: 'agent->client', t_ms: 0, msg, raw: JSON.stringify(msg) } as Frame);
      router.update('agent-1', s.update);
    }
    router.readEnd();
  };
  return { session, link, got, play, end: (stopReason: string) => answer({ stopReason }) };
}

/** An agent's messageId as it is; Talaria's (a UUID, for a message the agent gave none) as '*'. */
const AGENT_IDS = new Set(['m1', 'm2', 'm3']);

/** The editor's view: each tool call's last status; each message (by kind and messageId, in order) with its text. */
function editorView(got: readonly Record<string, any>[]) {
  const calls = new Map<string, string>();
  const messages = new Map<string, string>();
  for (const p of got) {
    expect(p.sessionId).toBe('talaria-1');
    const u = p.update as Record<string, any>;
    if (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') {
      const status = u.status ?? (u.sessionUpdate === 'tool_call' ? 'pending' : (calls.get(u.toolCallId) ?? 'pending'));
      calls.set(u.toolCallId, status);
    } else if (u.sessionUpdate.endsWith('_chunk')) {
      // The agent's id, else Talaria's: a UUID (entry ids repeat across threads, and an editor may hold several).
      if (!AGENT_IDS.has(u.messageId))
        expect(u.messageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const key = `${u.sessionUpdate}:${u.messageId}`;
      // In the order messages got their first text (an empty chunk starts no message in the thread).
      if (u.content.text !== '') messages.set(key, (messages.get(key) ?? '') + u.content.text);
    }
  }
  const list: string[] = [];
  for (const [k, text] of messages) {
    const [kind, id] = k.split(':') as [string, string];
    if (text !== '') list.push(`${kind}:${AGENT_IDS.has(id) ? id : '*'}:${text}`); // an empty chunk makes no message
  }
  return { calls: Object.fromEntries(calls), messages: list };
}

const CHUNK_OF: Record<string, string> = {
  assistant_message: 'agent_message_chunk',
  thought: 'agent_thought_chunk',
  user_message: 'user_message_chunk',
};

/** The thread's view, in the editor's terms (a prompt is not the agent's: the editor sent it). */
function threadView(session: Session) {
  const calls: Record<string, string> = {};
  const messages: string[] = [];
  for (const e of session.thread.entries.slice(1)) {
    if (e.kind === 'tool_call') calls[e.toolCallId] = acpStatus(e.status);
    else if (e.kind === 'assistant_message' || e.kind === 'thought' || e.kind === 'user_message')
      messages.push(`${CHUNK_OF[e.kind]}:${e.messageId ?? '*'}:${e.text}`);
  }
  return { calls, messages };
}

describe('one frame road: the editor and the thread agree', () => {
  it('for any frames of a turn, a cancel anywhere with late updates, its end and updates after it', async () => {
    await fc.assert(
      fc.asyncProperty(road, async ({ before, cancelled, after, lines }) => {
        const { session, link, got, play, end } = open(lines);
        link.ownPrompt = true;
        const turn = session.prompt('go');
        link.ownPrompt = false;
        link.ownTurns.add(turn.id);
        play(before);
        if (cancelled) {
          void session.cancel();
          play(cancelled);
        }
        end(cancelled ? 'cancelled' : 'end_turn');
        const r = await turn.result;
        link.settle(r.stopReason);
        play(after);
        expect(editorView(got)).toEqual(threadView(session));
        link.dispose();
      }),
      {
        numRuns: 200,
        examples: [
          // The agent's word on a call open at the cancel is dropped: the thread settles it cancelled (the editor: failed).
          [
            {
              before: [{ update: { sessionUpdate: 'tool_call', toolCallId: 't1', status: 'in_progress' } }],
              cancelled: [{ update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' } }],
              after: [],
              lines: true,
            },
          ],
          // An update to a known call does not end a message, nor does an empty chunk of another kind.
          [
            {
              before: [
                { update: { sessionUpdate: 'tool_call', toolCallId: 't1', status: 'in_progress' } },
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'a' } } },
                { update: { sessionUpdate: 'tool_call_update', toolCallId: 't1', status: 'completed' } },
                { update: { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: '' } } },
                { update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'b' } } },
              ],
              cancelled: undefined,
              after: [],
              lines: true,
            },
          ],
        ],
      },
    );
  });

  it("a replay the session discards (a reload of history it holds) is not the editor's either", () => {
    const { session, got, play } = open(true);
    play([{ update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'live' } } }]);
    session.beginReplay(true);
    play([
      { update: { sessionUpdate: 'agent_message_chunk', messageId: 'old', content: { type: 'text', text: 'again' } } },
    ]);
    session.endReplay();
    expect(got.map((p) => p.update.content.text)).toEqual(['live']);
    expect(session.thread.entries.map((e) => ('text' in e ? e.text : e.kind))).toEqual(['live']);
  });
});
