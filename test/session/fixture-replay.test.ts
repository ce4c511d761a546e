import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { AcpClient } from '../../src/session/client.js';
import { parseWireLog } from '../../src/protocol/wire-log.js';
import { hermesModelRows } from '../../src/providers/hermes/catalog.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import type { Session } from '../../src/session/session.js';
import type { ToolCallEntry } from '../../src/thread/types.js';
import { playFixture, type FixturePlayer } from '../fakes/fixture-player.js';
import { assistantText, waitFor } from './helpers.js';

/**
 * The recorded Hermes 0.18.2 traffic, played back as the agent over real streams, consumed by the
 * whole client stack: NDJSON transport → SDK adapter → session router → reducer.
 */
const fixture = (name: string) =>
  parseWireLog(readFileSync(fileURLToPath(new URL(`../fixtures/hermes-0.18.2/${name}`, import.meta.url)), 'utf8'));

let open: { client: AcpClient; player: FixturePlayer }[] = [];
async function connect(name: string) {
  const player = playFixture(fixture(name));
  const client = await AcpClient.connect(
    { input: player.agentOut, output: player.agentIn },
    {
      hooks: { usageMode: 'cumulative', modelRows: hermesModelRows, loadEmptyMeansNotFound: true },
      fs: false,
      terminal: false,
    },
  );
  open.push({ client, player });
  return { client, player };
}
afterEach(async () => {
  for (const { client, player } of open) {
    player.close();
    await client.close();
  }
  open = [];
});

const tool = (s: Session, pred: (t: ToolCallEntry) => boolean) =>
  s.thread.entries.find((e): e is ToolCallEntry => e.kind === 'tool_call' && pred(e));

/** Answers each permission request the way the recording did, by option kind. */
function answerAs(s: Session, choices: ('allow_once' | 'reject_once')[]) {
  s.subscribe((e) => {
    if (e.type === 'permission.asked') s.answerPermission(e.requestKey, { choice: choices.shift() ?? 'reject_once' });
  });
}

describe('Hermes 0.18.2 recordings through transport + reducer', () => {
  it('tools.ndjson: dangling read/write calls settled at turn end with their titles; denied command failed', async () => {
    const { client, player } = await connect('tools.ndjson');
    expect(client.capabilities.agentInfo?.name).toBe('hermes-agent');
    const s = await client.newSession({ cwd: '/workspace' });
    expect(s.catalog.model?.options.map((o) => o.providerId)).toEqual(['custom']);
    answerAs(s, ['allow_once', 'reject_once']);
    const r1 = await s.prompt('TOOLS: read notes, echo, write out.txt').result;
    expect(r1.usage?.totalTokens).toBe(4936);
    const read = tool(s, (t) => t.toolCallId === 'tc-ab1a790290b6');
    expect(read).toMatchObject({
      status: 'completed',
      settledBy: 'turn_end',
      title: 'read: /workspace/notes.txt',
      toolKind: 'read',
    });
    const term = tool(s, (t) => t.title === 'terminal: echo hello-from-terminal');
    expect(term).toMatchObject({ status: 'completed', settledBy: 'agent' });
    const write = tool(s, (t) => t.title === 'write: /workspace/out.txt');
    expect(write).toMatchObject({ status: 'completed', settledBy: 'turn_end' });

    await s.setMode('dont_ask');
    const r2 = await s.prompt('EDIT2 in dont_ask mode').result;
    expect(r2.usage?.totalTokens).toBe(7404 - 4936);
    await s.prompt('DANGER: remove junkdir').result;
    const rm = tool(s, (t) => t.title === 'terminal: rm -rf /workspace/junkdir');
    expect(rm?.status).toBe('failed');
    expect(s.thread.entries.some((e) => e.kind === 'tool_call' && e.permission?.status === 'rejected')).toBe(true);

    await s.prompt('TODO: make a plan').result;
    expect(s.thread.plan).toHaveLength(3);
    await s.prompt('THINK about it').result;
    const thought = s.thread.entries.find((e) => e.kind === 'thought');
    expect(thought && 'text' in thought ? thought.text : '').toBe('Let me think about this carefully. ');
    expect(player.unmatched).toEqual([]);
    // Every tool call of every turn is closed.
    expect(s.openToolCalls()).toEqual([]);
  });

  it('main.ndjson: stream, slash command, modes, list, legacy set_model, cancel keeps text, text errors, refusal, load {}', async () => {
    const { client, player } = await connect('main.ndjson');
    const s = await client.newSession({ cwd: '/workspace' });
    answerAs(s, ['allow_once']);
    await s.prompt('hello there').result;
    expect(assistantText(s)).toBe('Hello from the fake model! You said: hello there');
    await s.prompt('TOOLS: read notes, echo, write out.txt').result;
    await s.prompt('/help').result;
    await s.setMode('accept_edits');
    expect(s.catalog.mode?.currentId).toBe('accept_edits');
    await s.setConfigOption('edit_approval_policy', 'ask');
    const listed = await client.listSessions({ cwd: '/workspace' });
    expect(listed[0]).toMatchObject({ title: 'Fake title' });
    await s.setModel('custom:fake-model');

    const slow = s.prompt('SLOW please');
    await waitFor(
      s,
      (e) => e.type === 'entry.updated' && (e.entry as { text?: string }).text?.endsWith('so ') === true,
    );
    void s.cancel();
    const cancelled = await slow.result;
    expect(cancelled.stopReason).toBe('cancelled');
    expect(assistantText(s)).toContain('This reply streams slowly so ');

    const overflow = await s.prompt('OVERFLOW now').result;
    expect(overflow.stopReason).toBe('end_turn');
    expect(overflow.usage).toBeUndefined();
    expect(s.thread.context.size).toBe(8192);
    await s.prompt('AUTHFAIL now').result;
    expect(assistantText(s)).toContain('HTTP 401: Incorrect API key provided');

    // Methods Hermes does not have: typed errors, the connection survives.
    await expect(client.connection.request('session/delete', { sessionId: s.id })).rejects.toMatchObject({
      code: -32601,
    });
    await expect(client.connection.request('ping', {})).rejects.toMatchObject({ code: -32601 });
    const refused = await client.connection.request<{ stopReason: string }>('session/prompt', {
      sessionId: 'no-such-session',
      prompt: [{ type: 'text', text: 'hi' }],
    });
    expect(refused.stopReason).toBe('refusal');
    await expect(client.loadSession('no-such-session', { cwd: '/workspace' })).rejects.toSatisfy((e: unknown) =>
      isTalariaError(e, 'session_not_found'),
    );
    expect(player.unmatched).toEqual([]);
  });

  it('reload.ndjson: load replays history into a fresh thread with provider ids; resume replays too (Hermes quirk)', async () => {
    const { client } = await connect('reload.ndjson');
    const listed = await client.listSessions();
    expect(listed).toHaveLength(1);
    const id = listed[0]!.sessionId;
    const loaded = await client.loadSession(id, { cwd: '/workspace' });
    const write = tool(loaded, (t) => t.toolCallId === 'call_write_3');
    expect(write).toMatchObject({ status: 'completed', title: 'write: /workspace/out.txt' });
    expect(assistantText(loaded)).toContain('All three tools ran. Done.');
    expect(loaded.thread.entries.filter((e) => e.kind === 'user_message').length).toBeGreaterThanOrEqual(2);
    expect(loaded.catalog.model?.currentId).toBe('custom:fake-model');
    await client.closeSession(loaded);
    const resumed = await client.resumeSession(id, { cwd: '/workspace' });
    expect(tool(resumed, (t) => t.toolCallId === 'call_write_3')).toBeDefined();
    const forked = await client.forkSession(id, { cwd: '/workspace' });
    expect(forked.id).not.toBe(id);
    expect(forked.catalog.model?.currentId).toBe('custom:fake-model');
  });

  it('profile.ndjson: one streamed turn and the async title after the response', async () => {
    const { client } = await connect('profile.ndjson');
    const s = await client.newSession({ cwd: '/workspace' });
    const title = waitFor(s, (e) => e.type === 'info.updated');
    const r = await s.prompt('hello there').result;
    expect(r.usage?.totalTokens).toBe(1234);
    await title;
    expect(s.thread.title).toBeTruthy();
  });

  it('noauth.ndjson: session/new fails with the setup hint and the thread stays empty', async () => {
    const { client } = await connect('noauth.ndjson');
    expect(client.capabilities.authMethods.map((m: { id: string }) => m.id)).toEqual(['hermes-setup']);
    await expect(client.newSession({ cwd: '/workspace' })).rejects.toMatchObject({
      code: -32603,
      data: { details: expect.stringContaining('hermes setup') },
    });
  });
});
