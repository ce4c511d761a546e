/**
 * `POST /api/run/stream` (issue 16): the run's answer, then its turn line by line, ending with it;
 * read here by the CLI's own reader (src/cli/run-stream-client.ts) and by a raw reader that stops
 * reading for the whole turn.
 */
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { applyEvent } from '../../src/server/client/thread.js';
import { ServerError } from '../../src/server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../src/server/contract/index.js';
import { checkAlive, postRunStream } from '../../src/cli/run-stream-client.js';
import { openRunStream } from '../../src/server/run-stream.js';
import { contiguous, demoSession, serve, type Served } from './helpers.js';
import { until } from '../until.js';

vi.setConfig({ testTimeout: 240_000 });

const plain = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;

function idle(s: Served, id: string): Promise<SessionSnapshot> {
  return until(
    async () => {
      const { snapshot } = await s.client.api.snapshot({ params: { id } });
      return snapshot.turnId === undefined && snapshot.session.state === 'idle' ? snapshot : undefined;
    },
    { what: `session ${id} idle`, ms: 120_000, every: 20 },
  );
}

function chunks(snap: SessionSnapshot): number {
  const answer = snap.thread.entries.find((e) => (e as { kind: string }).kind === 'assistant_message') as
    { text?: string } | undefined;
  return answer?.text?.match(/Chunk \d+ of/g)?.length ?? 0;
}

/** Every line of a run stream's body, parsed (read to its end). */
async function linesOf(
  response: Response,
): Promise<{ type: string; seq: number; turnId?: string; snapshot?: SessionSnapshot }[]> {
  let text = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
  return text
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { type: string; seq: number; turnId?: string; snapshot?: SessionSnapshot });
}

describe('POST /api/run/stream', () => {
  it('answers with the run, then every event of its turn in order, and ends with the turn', async () => {
    const s = await serve();
    await checkAlive(s.server.origin, 5_000);
    const stream = await postRunStream(s.server.origin, s.server.token, {
      path: s.p.userHome,
      provider: 'demo',
      text: 'hello stream',
    });
    expect(stream.answer).toMatchObject({ type: 'run', turn: { queued: false, position: 0 } });
    const snap = stream.answer.snapshot as SessionSnapshot;
    const events: StreamEvent[] = [];
    stream.listen((m) => events.push(m as StreamEvent));
    expect(await stream.closed).toBe('end');
    contiguous(events, snap.seq + 1);
    expect(events.some((e) => e.type === 'turn.started')).toBe(true);
    // It ends with the batch that holds the turn's end (an `attention` about it may share that batch).
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({
      turnId: stream.answer.turn.id,
      stopReason: 'end_turn',
    });
    // The snapshot plus the stream is the thread the server holds.
    for (const e of events) applyEvent(snap, e);
    const { snapshot } = await s.client.api.snapshot({ params: { id: snap.session.id } });
    expect(plain(snap.thread.entries)).toEqual(plain(snapshot.thread.entries));
    expect(
      (snap.thread.entries as { kind: string; text?: string }[])
        .filter((e) => e.kind === 'user_message')
        .map((e) => e.text),
    ).toEqual(['hello stream']);
  });

  it('an error answer is JSON, sent no prompt and made no session; a bad token is refused', async () => {
    const s = await serve();
    const before = (await s.client.api.listSessions({})).sessions.length;
    const fail = (body: object, token = s.server.token) =>
      postRunStream(s.server.origin, token, body).then(
        () => undefined,
        (e: unknown) => e as ServerError,
      );
    expect(await fail({ path: s.p.userHome, provider: 'nope', text: 'hi' })).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    expect(await fail({ path: '/no/such/dir', provider: 'demo', text: 'hi' })).toMatchObject({
      status: 400,
      code: 'invalid_argument',
    });
    expect(await fail({ path: s.p.userHome, provider: 'demo', text: ' ' })).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(await fail({ path: s.p.userHome, provider: 'demo', text: 'hi' }, 'not-a-token')).toMatchObject({
      status: 401,
      code: 'unauthorized',
    });
    expect(await fail({ path: s.p.userHome, provider: 'demo', text: 'hi' }, 'not-a-token')).toBeInstanceOf(ServerError);
    expect((await s.client.api.listSessions({})).sessions.length).toBe(before);
    // A port where no server listens: refused, with its code (the CLI then runs locally).
    const gone = createNetServer();
    await new Promise<void>((r) => gone.listen(0, '127.0.0.1', r));
    const port = (gone.address() as AddressInfo).port;
    await new Promise((r) => gone.close(r));
    const nobody = `http://127.0.0.1:${port}`;
    await expect(checkAlive(nobody, 5_000)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    await expect(postRunStream(nobody, s.server.token, { path: s.p.userHome, text: 'hi' })).rejects.toMatchObject({
      code: 'ECONNREFUSED',
    });
  });

  it('a reader that stops reading for the whole turn is not waited for, and then gets every event once, in order, from the log', async () => {
    // The stream itself (what the route answers with), read without HTTP: kernel socket buffers
    // (tens of MB here) would hold a whole turn before the stream's own bound is reached.
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '3000', TALARIA_DEMO_SLOW_DELAY_MS: '0' } });
    const id = await demoSession(s);
    const after = vi.spyOn(s.server.hub.log, 'after');
    const { snapshot: before } = await s.client.api.snapshot({ params: { id } });
    const stream = openRunStream(s.server.hub, id, 1024);
    const turn = await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    stream.begin({ workspace: null, snapshot: before, turn });
    // The agent and the server go on without this reader: the turn ends while it reads nothing.
    await idle(s, id);
    expect(after).toHaveBeenCalledTimes(0);
    const [head, ...rest] = await linesOf(stream.response);
    expect(after).toHaveBeenCalled(); // it fell behind, and caught up from the event log
    expect(head).toMatchObject({ type: 'run', turn });
    expect(rest.some((m) => m.type === 'snapshot')).toBe(false);
    const snap = head!.snapshot!;
    const events = rest as unknown as StreamEvent[];
    contiguous(events, snap.seq + 1);
    expect(events.find((e) => e.type === 'turn.ended')).toMatchObject({ turnId: turn.id });
    for (const e of events) applyEvent(snap, e);
    expect(chunks(snap)).toBe(3000);
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    expect(plain(snap.thread.entries)).toEqual(plain(snapshot.thread.entries));
  });

  it('when the log no longer holds what a slow reader missed, a snapshot line stands for it', async () => {
    const s = await serve({
      retainEvents: 20,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: '3000', TALARIA_DEMO_SLOW_DELAY_MS: '0' },
    });
    const id = await demoSession(s);
    const { snapshot: before } = await s.client.api.snapshot({ params: { id } });
    const stream = openRunStream(s.server.hub, id, 1024);
    const turn = await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    stream.begin({ workspace: null, snapshot: before, turn });
    await idle(s, id);
    const lines = await linesOf(stream.response);
    const at = lines.findIndex((m) => m.type === 'snapshot');
    expect(at).toBeGreaterThan(0);
    // The snapshot replaces what the reader held; the events after it continue from its seq, but
    // for the turn's end it already covers, which comes again so the reader learns how the run ended.
    const snap = lines[at]!.snapshot!;
    // (This reader read nothing until the turn had ended: its snapshot covers the end.)
    const [end, ...events] = lines.slice(at + 1) as unknown as StreamEvent[];
    expect(end).toMatchObject({ type: 'turn.ended', turnId: turn.id });
    expect(end!.seq).toBeLessThanOrEqual(snap.seq);
    contiguous(events, snap.seq + 1);
    for (const e of events) applyEvent(snap, e);
    expect(chunks(snap)).toBe(3000);
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    expect(plain(snap.thread.entries)).toEqual(plain(snapshot.thread.entries));
  });

  it('with `session`, an existing session is prompted: a prompt queued behind a running turn streams until its own turn ends', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '200', TALARIA_DEMO_SLOW_DELAY_MS: '1' } });
    const id = await demoSession(s);
    const first = await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const stream = await postRunStream(s.server.origin, s.server.token, { session: id, text: 'hello after' });
    expect(stream.answer).toMatchObject({ type: 'run', turn: { queued: true, position: 1 } });
    expect((stream.answer.snapshot as SessionSnapshot).session.id).toBe(id);
    const events: StreamEvent[] = [];
    stream.listen((m) => events.push(m as StreamEvent));
    expect(await stream.closed).toBe('end');
    const ends = events.filter((e) => e.type === 'turn.ended');
    // The running turn's end, then the queued prompt's: the stream ends with the run's own turn.
    expect(ends.map((e) => e.turnId)[0]).toBe(first.id);
    const started = events.filter((e) => e.type === 'turn.started').map((e) => e.turnId);
    expect(ends.at(-1)!.turnId).toBe(started.at(-1));
    expect(started.at(-1)).not.toBe(first.id);
    const snap = stream.answer.snapshot as SessionSnapshot;
    for (const e of events) applyEvent(snap, e);
    const users = (snap.thread.entries as { kind: string; text?: string; turnId?: string }[]).filter(
      (e) => e.kind === 'user_message',
    );
    expect(users.at(-1)).toMatchObject({ text: 'hello after', turnId: started.at(-1) });
  });

  it('with `session`, a queued prompt removed before it ran ends the stream with the update that removed it; the running turn goes on', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const id = await demoSession(s);
    const first = await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const stream = await postRunStream(s.server.origin, s.server.token, { session: id, text: 'hello after' });
    const events: StreamEvent[] = [];
    stream.listen((m) => events.push(m as StreamEvent));
    await s.client.api.removeQueued({ params: { id, item: stream.answer.turn.id } });
    expect(await stream.closed).toBe('end');
    expect(events.at(-1)).toMatchObject({ type: 'queue.updated', queue: [] });
    expect(events.at(-1)).not.toHaveProperty('started');
    expect(events.some((e) => e.type === 'turn.ended')).toBe(false);
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    expect(snapshot.turnId).toBe(first.id);
    await s.client.api.cancel({ params: { id } });
  });

  it('`session` errors: an unknown session is 404; both path and session, or a permissionMode with session (it would be ignored), is 400; none sends a prompt', async () => {
    const s = await serve();
    const id = await demoSession(s);
    const fail = (body: object) =>
      postRunStream(s.server.origin, s.server.token, body).then(
        () => undefined,
        (e: unknown) => e as ServerError,
      );
    expect(await fail({ session: 'no-such-session', text: 'hi' })).toMatchObject({ status: 404, code: 'not_found' });
    expect(await fail({ session: id, path: s.p.userHome, text: 'hi' })).toMatchObject({
      status: 400,
      code: 'invalid_body',
    });
    expect(await fail({ text: 'hi' })).toMatchObject({ status: 400, code: 'invalid_body' });
    const mode = await fail({ session: id, permissionMode: 'default', text: 'hi' });
    expect(mode).toMatchObject({ status: 400, code: 'invalid_body' });
    expect(mode?.message).toContain('permissionMode is for a new session');
    const { snapshot } = await s.client.api.snapshot({ params: { id } });
    expect(snapshot.thread.entries).toHaveLength(0);
  });

  it("a queued run's turn that started inside a gap the log no longer holds: the snapshot line names it", async () => {
    const s = await serve({
      retainEvents: 20,
      vars: { TALARIA_DEMO_SLOW_CHUNKS: '3000', TALARIA_DEMO_SLOW_DELAY_MS: '0' },
    });
    const id = await demoSession(s);
    await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    const { snapshot: before } = await s.client.api.snapshot({ params: { id } });
    const stream = openRunStream(s.server.hub, id, 1024);
    const turn = await s.client.api.prompt({ params: { id }, body: { text: 'slow' } });
    expect(turn.queued).toBe(true);
    stream.begin({ workspace: null, snapshot: before, turn });
    // Both turns run to their end while the reader reads nothing: the queued prompt starts in the gap.
    await idle(s, id);
    const lines = await linesOf(stream.response);
    const gap = lines.find((m) => m.type === 'snapshot')!;
    const users = (gap.snapshot!.thread.entries as { kind: string; turnId?: string }[]).filter(
      (e) => e.kind === 'user_message',
    );
    expect(users).toHaveLength(2);
    expect(gap.turnId).toBe(users[1]!.turnId);
    // The run's end (covered by the snapshot) comes again after it: that turn's.
    expect(lines.at(-1)).toMatchObject({ type: 'turn.ended', turnId: gap.turnId });
  });

  it('a reader that goes away mid-turn leaves the turn running to its end at the server', async () => {
    const s = await serve({ vars: { TALARIA_DEMO_SLOW_CHUNKS: '300', TALARIA_DEMO_SLOW_DELAY_MS: '5' } });
    const stream = await postRunStream(s.server.origin, s.server.token, {
      path: s.p.userHome,
      provider: 'demo',
      text: 'slow',
    });
    const id = (stream.answer.snapshot as SessionSnapshot).session.id;
    let seen = 0;
    await new Promise<void>((r) =>
      stream.listen((m) => {
        if (m.type === 'entry.appended' && ++seen === 5) r();
      }),
    );
    stream.close();
    expect(await stream.closed).toBe('broken');
    const done = await idle(s, id);
    expect(chunks(done)).toBe(300);
    // The server still answers runs (nothing was left subscribed to a reader that is gone).
    const again = await postRunStream(s.server.origin, s.server.token, {
      path: s.p.userHome,
      provider: 'demo',
      text: 'hello again',
    });
    again.listen(() => undefined);
    expect(await again.closed).toBe('end');
  });
});
