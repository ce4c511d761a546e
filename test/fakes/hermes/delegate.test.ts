/**
 * DELEGATE → delegate_task (issue 38 item 4), against the real 0.18.2 recording
 * test/fixtures/hermes-0.18.2-real/20-delegate: the same frames (tool_call, its immediate
 * "dispatched" completion, "Delegation launched."), and nothing of the child, then or later.
 */
import { describe, expect, it } from 'vitest';
import { delegateTitle } from './delegate.js';
import { loadReal } from './fixture-driver.js';
import { openSession, type Msg } from './test-client.js';
import { prompt, upd, useEnv } from './test-env.js';

const { makeHome, makeWs, start } = useEnv('hermes-delegate-');

/** Ids made stable: the live tool id and the delegation id are random. */
function norm(u: Msg, ws: string): Msg {
  const s = JSON.stringify(u)
    .replaceAll(ws, '/workspace')
    .replace(/tc-[0-9a-f]{12}/g, 'tc-ID')
    .replace(/deleg_[0-9a-f]{8}/g, 'deleg_ID');
  return JSON.parse(s) as Msg;
}

const turnUpdates = (frames: Msg[]) =>
  frames
    .map(upd)
    .filter((u): u is Msg => !!u && u.sessionUpdate !== 'usage_update')
    .map((u) => u);

describe('Hermes emulator: delegate_task', () => {
  it('sends exactly the recorded frames: a plain execute tool call, completed at once with the dispatched JSON; no child frames', async () => {
    const lines = loadReal('20-delegate');
    const req = lines.find(
      (l) => l.msg.method === 'session/prompt' && /DELEGATE/.test(JSON.stringify(l.msg.params.prompt)),
    )!;
    const end = lines.findIndex((l) => l.dir === 'agent->client' && l.msg.id === req.msg.id && l.msg.result);
    const real = turnUpdates(lines.slice(lines.indexOf(req) + 1, end).map((l) => l.msg)).map((u) =>
      norm(u, '/workspace'),
    );

    const ws = makeWs();
    const c = start(makeHome());
    const { id } = await openSession(c, ws);
    const { res, frames } = await prompt(c, id, 'DELEGATE the notes reading');
    expect(res.result.stopReason).toBe('end_turn');
    const mine = turnUpdates(frames).map((u) => norm(u, ws));
    // The recorded title was cut from a longer workspace path: checked by the rule, the rest as recorded.
    expect(mine[0]!.title).toBe(delegateTitle(`CHILDTASK: read notes.txt in ${ws} and report its first line`));
    expect(real[0]!.title).toMatch(/^delegate: CHILDTASK: read notes\.txt in \/workspace and r\.\.\.$/);
    const untitled = (u: Msg) => ({ ...u, title: u.title === undefined ? undefined : 'T' });
    expect(mine.map(untitled)).toEqual(real.map(untitled));
    // Key order too (the SDK's field order).
    expect(mine.map((u) => Object.keys(u).join(','))).toEqual(real.map((u) => Object.keys(u).join(',')));
    const done = JSON.parse(mine[1]!.content[0].content.text as string) as Msg;
    expect(done).toMatchObject({ status: 'dispatched', mode: 'background', count: 1, delegation_id: 'deleg_ID' });

    // The next turn: still nothing of the child (its result is never delivered over ACP).
    const next = await prompt(c, id, 'hello after delegation');
    expect(turnUpdates(next.frames).map((u) => u.sessionUpdate)).toEqual(
      expect.arrayContaining(['agent_message_chunk']),
    );
    expect(turnUpdates(next.frames).some((u) => /^tool_call/.test(u.sessionUpdate))).toBe(false);
  });
});
