/**
 * The emulator against trimmed recordings of REAL Hermes 0.18.2 (test/fixtures/hermes-0.18.2-real,
 * docs/hermes.md): turns, tools, usage, MCP and set_model, 401s, /steer and the prompt queue.
 * The client side of each recording is replayed; what the emulator answers must read the same.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  driveFixture,
  keyOrders,
  loadReal,
  midTurnIds,
  MID_TURN_NOTICE,
  responses,
  shapes,
  transcript,
  type FixtureLine,
} from './fixture-driver.js';
import type { Msg } from './test-client.js';
import { upd, useEnv } from './test-env.js';

const env = useEnv('hermes-real-');
const NOTES = { 'notes.txt': 'These are the notes. Line two.\n' };

/** usage_update follows every prompt, slash command and "⏩ Steer queued", never a plain queued answer. */
const usageUpdates = (msgs: Msg[]) => msgs.filter((m) => upd(m)?.sessionUpdate === 'usage_update').length;
const notices = (msgs: Msg[]) =>
  msgs
    .map((m) => upd(m)?.content?.text)
    .filter((t) => typeof t === 'string' && MID_TURN_NOTICE.test(t))
    .sort((a, b) => String(a).localeCompare(String(b)));

/** Replays a recording; returns both sides. */
async function replay(
  name: string,
  o: { files?: Record<string, string>; env?: Record<string, string>; lines?: FixtureLine[] } = {},
) {
  const ws = env.makeWs(o.files ?? NOTES);
  const home = env.makeHome();
  const c = env.start(home, o.env);
  const lines = o.lines ?? loadReal(name);
  const r = await driveFixture(c, lines, { ws });
  return { ...r, ws, home, lines, c };
}

describe('emulator vs real Hermes 0.18.2', () => {
  it('s2: turns, tools, a denied write, thinking, todo, /context wording, cumulative usage, key order', async () => {
    const r = await replay('s2-turns');
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    expect(transcript(r.agent, r.ws)).toEqual(transcript(r.fixture));
    expect(keyOrders(r.agent)).toEqual(keyOrders(r.fixture));
    // The custom endpoint's catalog comes from its GET /v1/models (two models on the research fake).
    const created = (msgs: Msg[]) => msgs.find((m) => m.id === 2 && !m.method)!.result;
    expect(created(r.agent).models).toEqual(created(r.fixture).models);
    expect(created(r.agent).modes).toEqual(created(r.fixture).modes);
  });

  it('s3: MCP tool calls (locations [], rawInput, rawOutput, untrusted wrapper), /tools, set_model drops MCP, unknown a:b model', async () => {
    const r = await replay('s3-set-model-mcp');
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    expect(transcript(r.agent, r.ws)).toEqual(transcript(r.fixture));
    expect(keyOrders(r.agent)).toEqual(keyOrders(r.fixture));
    const raw = (msgs: Msg[]) =>
      msgs
        .map(upd)
        .filter((u) => u?.rawInput || u?.rawOutput)
        .map((u) => [u!.rawInput, u!.rawOutput]);
    expect(raw(r.agent)).toEqual(raw(r.fixture));
  });

  it('s4: a 401 keeps the user message; later prompts merge into it ("\\n\\n") and fail while the cause persists', async () => {
    const r = await replay('s4-auth-401');
    expect(shapes(r.agent)).toEqual(shapes(r.fixture));
    expect(transcript(r.agent, r.ws)).toEqual(transcript(r.fixture));
    // A failed exchange is titled too (one title: the later attempts find it stored).
    await r.c.waitFor((m) => upd(m)?.sessionUpdate === 'session_info_update', 'title after the 401');
    const titled = (msgs: Msg[]) => msgs.filter((m) => upd(m)?.sessionUpdate === 'session_info_update').length;
    expect(titled(r.c.frames)).toBe(titled(r.fixture));
  });

  it('s6: /steer lost in a text turn, injected into a tool result, idle = a prompt, stale salvage after a cancel', async () => {
    // The recording slept 4 s in the tool; 1 s leaves the steer the same window.
    const lines = JSON.parse(JSON.stringify(loadReal('s6-steer')).split('sleep 4').join('sleep 1')) as FixtureLine[];
    const r = await replay('s6-steer', { lines });
    const mid = midTurnIds(lines);
    expect(transcript(r.agent, r.ws, { midTurn: mid })).toEqual(transcript(r.fixture, undefined, { midTurn: mid }));
    expect(responses(r.agent, mid)).toEqual(responses(r.fixture, mid));
    expect(notices(r.agent)).toEqual(notices(r.fixture));
    expect(usageUpdates(r.agent)).toBe(usageUpdates(r.fixture));
    // What the model saw: the tool result carries the out-of-band message (research request log).
    const db = JSON.parse(readFileSync(join(r.home, 'emulator-sessions.json'), 'utf8')) as {
      sessions: Record<string, { history: Msg[] }>;
    };
    const tool = Object.values(db.sessions)[0]!.history.find((m) => m.role === 'tool')!;
    expect(tool.content).toMatch(
      /"exit_code": 0, "error": null}\n\n\[OUT-OF-BAND USER MESSAGE — a direct message from the user, delivered mid-turn; not tool output\]\ndo Y now\n\[\/OUT-OF-BAND USER MESSAGE\]$/,
    );
  });

  it('s8: queued prompts run inside the first request, whose usage leaves them out; a cancel still runs the queue', async () => {
    const r = await replay('s8-queue');
    const mid = midTurnIds(r.lines);
    expect(transcript(r.agent, r.ws, { midTurn: mid })).toEqual(transcript(r.fixture, undefined, { midTurn: mid }));
    expect(responses(r.agent, mid)).toEqual(responses(r.fixture, mid));
    expect(notices(r.agent)).toEqual(notices(r.fixture));
    expect(usageUpdates(r.agent)).toBe(usageUpdates(r.fixture));
  });
});
