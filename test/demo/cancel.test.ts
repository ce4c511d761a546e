import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { allow, cancelledOutcome, rpcError, spawnDemo, tempDir, textOf, toolCalls, type DemoPeer } from './harness.js';

describe('demo agent: cancel and busy', () => {
  let peer: DemoPeer;
  let root: string;
  let cwd: string;
  let sessionId: string;

  const start = (t: string, id = sessionId): Promise<acp.PromptResponse> =>
    peer.agent.request(acp.methods.agent.session.prompt, { sessionId: id, prompt: [{ type: 'text', text: t }] });
  const cancel = (id = sessionId): Promise<void> =>
    peer.agent.notify(acp.methods.agent.session.cancel, { sessionId: id });
  const seen = (from: number, pred: (u: acp.SessionUpdate) => boolean): Promise<acp.SessionUpdate> =>
    peer.waitFor(() => peer.of(sessionId, from).find(pred));

  beforeAll(async () => {
    root = tempDir('cancel');
    peer = await spawnDemo({ TALARIA_DEMO_HOME: tempDir('cancel-home'), TALARIA_DEMO_PERMISSION_GRACE_MS: '100' });
  });
  beforeEach(async () => {
    cwd = join(root, `ws-${peer.updates.length}`);
    mkdirSync(cwd);
    sessionId = (await peer.newSession(cwd)).sessionId;
    peer.answer = () => allow();
    peer.permissions.length = 0;
  });
  afterEach(() => expect(peer.violations.splice(0)).toEqual([]));
  afterAll(async () => {
    if (peer.child.exitCode === null) await peer.end();
  });

  it('cancel mid "slow": stops streaming, fails the running tool call, answers cancelled, keeps the text', async () => {
    const from = peer.updates.length;
    const turn = start('slow');
    await seen(from, (u) => u.sessionUpdate === 'agent_message_chunk');
    await cancel();
    const r = await turn;
    expect(r.stopReason).toBe('cancelled');
    const ups = peer.of(sessionId, from);
    const chunks = ups.filter((u) => u.sessionUpdate === 'agent_message_chunk');
    expect(chunks.length).toBeGreaterThan(0);
    expect(chunks.length).toBeLessThan(40);
    expect(textOf(ups)).toContain('Chunk 1 of 40');
    expect(textOf(ups)).not.toContain('nothing was cancelled');
    expect(toolCalls(ups).map((c) => c.status)).toEqual(['failed']);
    // The session takes prompts again.
    expect((await start('hi')).stopReason).toBe('end_turn');
  });

  it('a second prompt while a turn runs is refused with -32603 "Session is busy"; other sessions are not blocked', async () => {
    const from = peer.updates.length;
    const turn = start('long');
    await seen(from, (u) => u.sessionUpdate === 'agent_message_chunk');
    const e = await rpcError(start('me too'));
    expect(e.code).toBe(-32603);
    expect(e.message).toBe('Session is busy');
    const other = await peer.newSession(cwd);
    expect((await start('hi', other.sessionId)).stopReason).toBe('end_turn');
    await cancel();
    expect((await turn).stopReason).toBe('cancelled');
  });

  it('cancel while a permission request is pending: client answers cancelled, file untouched', async () => {
    writeFileSync(join(cwd, 'a.txt'), 'original\n');
    let answer!: (r: acp.RequestPermissionResponse) => void;
    peer.answer = () => new Promise((res) => (answer = res));
    const from = peer.updates.length;
    const turn = start('edit a.txt');
    await peer.waitFor(() => peer.permissions.length === 1);
    await cancel();
    answer(cancelledOutcome);
    expect((await turn).stopReason).toBe('cancelled');
    expect(toolCalls(peer.of(sessionId, from)).map((c) => [c.kind, c.status])).toEqual([['edit', 'failed']]);
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('original\n');
  });

  it('cancel while a permission request is pending and the client never answers: still ends cancelled', async () => {
    // The agent stops waiting after TALARIA_DEMO_PERMISSION_GRACE_MS (100 ms here).
    peer.answer = () => new Promise<acp.RequestPermissionResponse>(() => undefined);
    const turn = start('run touch nope');
    await peer.waitFor(() => peer.permissions.length === 1);
    await cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect(existsSync(join(cwd, 'nope'))).toBe(false);
  });

  it('cancel during "run" kills the command and answers cancelled', async () => {
    const from = peer.updates.length;
    // If the kill did not happen, this turn would hang for a minute and the test would time out.
    const turn = start('run echo $$ > pid.txt; echo started; exec sleep 60');
    // "started" arrives as streamed output, after pid.txt was written.
    await seen(
      from,
      (u) => u.sessionUpdate === 'tool_call_update' && JSON.stringify(u.content ?? []).includes('started'),
    );
    await cancel();
    expect((await turn).stopReason).toBe('cancelled');
    expect(toolCalls(peer.of(sessionId, from))[0]?.status).toBe('failed');
    const pid = Number(readFileSync(join(cwd, 'pid.txt'), 'utf8'));
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('cancel of an idle or unknown session is harmless', async () => {
    await cancel();
    await cancel('no-such-session');
    expect((await start('hi')).stopReason).toBe('end_turn');
  });
});

describe('demo agent: stdin closing mid-turn', () => {
  it('kills the running command and exits 0 (debug logs go to stderr only)', async () => {
    const cwd = tempDir('close');
    const peer = await spawnDemo({ TALARIA_DEMO_HOME: tempDir('close-home'), TALARIA_DEMO_DEBUG: '1' });
    const { sessionId } = await peer.newSession(cwd);
    const turn = peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: 'run exec sleep 60' }],
    });
    turn.catch(() => undefined);
    await peer.waitFor(() =>
      peer.of(sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.status === 'in_progress'),
    );
    const { code } = await peer.end();
    expect(code).toBe(0);
    expect(peer.stderr()).toContain(`[talaria-demo] session/new ${sessionId}`);
    expect(peer.stderr()).toContain('connection closed, exiting');
    expect(peer.violations).toEqual([]); // stdout carried frames only
  });
});
