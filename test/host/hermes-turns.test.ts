/**
 * Hermes quirks inside a turn, against the emulator through real pipes (hermes provider + host).
 */
import { writeFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import type { ToolCallEntry } from '../../src/thread/types.js';
import { emuLog, hermesHome, makeHost, notices, shutdownHosts, tempDir, texts, waitSession } from './helpers.js';

afterEach(shutdownHosts);

const toolCalls = (s: { thread: { entries: unknown[] } }) =>
  s.thread.entries.filter((e) => (e as { kind: string }).kind === 'tool_call') as ToolCallEntry[];

describe('Hermes turns through the host', () => {
  it('settles the read/write calls Hermes never completes when the turn ends', async () => {
    const t = makeHost();
    writeFileSync(join(t.workspace, 'notes.txt'), 'first note\n');
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'auto' });
    const r = await s.prompt('TOOLS please').result;
    expect(r.stopReason).toBe('end_turn');
    const calls = toolCalls(s);
    expect(calls.map((c) => c.title)).toEqual([
      `read: ${join(t.workspace, 'notes.txt')}`,
      'terminal: echo hello-from-terminal',
      `write: ${join(t.workspace, 'out.txt')}`,
    ]);
    for (const c of calls) expect(c.toolCallId).toMatch(/^tc-[0-9a-f]{12}$/);
    expect(calls.map((c) => [c.status, c.settledBy])).toEqual([
      ['completed', 'turn_end'],
      ['completed', 'agent'],
      ['completed', 'turn_end'],
    ]);
    expect(readFileSync(join(t.workspace, 'out.txt'), 'utf8')).toBe('written by fake model\n');
  });

  it('turns cumulative usage into per-turn figures; the response stays the raw one the agent sent', async () => {
    const frames: Frame[] = [];
    const t = makeHost({ onFrame: (_k, f) => frames.push(f) });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const a = await s.prompt('hello').result;
    const b = await s.prompt('hello again').result;
    expect(a.usage).toMatchObject({ inputTokens: 1200, outputTokens: 34, totalTokens: 1234 });
    expect(b.usage).toMatchObject({ inputTokens: 1200, outputTokens: 34, totalTokens: 1234 });
    // TurnResult.response is what the agent answered, cumulative counters and all.
    const answers = frames.filter(
      (f) =>
        f.dir === 'agent->client' && (f.msg.result as { stopReason?: unknown } | undefined)?.stopReason !== undefined,
    );
    expect(b.response).toEqual(answers.at(-1)!.msg.result);
    expect((b.response as { usage: { inputTokens: number } }).usage.inputTokens).toBe(2400);
  });

  it("never triggers Hermes' own queue: a second prompt waits until the first one answered", async () => {
    const log = join(tempDir(), 'emu.log');
    const frames: Frame[] = [];
    const t = makeHost({ emu: { HERMES_EMU_LOG: log, HERMES_EMU_SLOW_MS: '15' }, onFrame: (_k, f) => frames.push(f) });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const first = s.prompt('SLOW please');
    const queued = waitSession(s, (e) => e.type === 'turn.queued');
    const second = s.prompt('second message');
    await queued;
    expect((await first.result).stopReason).toBe('end_turn');
    expect((await second.result).stopReason).toBe('end_turn');
    const prompts = frames.filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt');
    expect(prompts).toHaveLength(2);
    const firstAnswer = frames.findIndex(
      (f) => f.dir === 'agent->client' && f.msg.id === prompts[0]!.msg.id && f.msg.method === undefined,
    );
    expect(firstAnswer).toBeGreaterThan(-1);
    expect(frames.indexOf(prompts[1]!)).toBeGreaterThan(firstAnswer);
    expect(emuLog(log).filter((m) => m.method === 'session/prompt')).toHaveLength(2);
    expect(texts(s).join('\n')).not.toMatch(/Queued for the next turn/);
    expect(texts(s, 'user_message')).toEqual(['SLOW please', 'second message']);
  });

  it('after an overflow (real 0.18.2: every later prompt overflows again) the next message continues in a fresh session seeded with the conversation', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const first = s.id;
    expect((await s.prompt('hello there').result).stopReason).toBe('end_turn');
    const r = await s.prompt('OVERFLOW now').result;
    expect(r.stopReason).toBe('error');
    expect(r.error?.code).toBe('context_overflow');
    expect(notices(s).map((n) => n.code)).toEqual(['context_overflow', 'overflow_recovery']);

    const next = await s.prompt('and now?').result;
    expect(next.stopReason).toBe('end_turn');
    expect(next.error).toBeUndefined();
    // Same Session object, same process, a new agent session.
    expect(s.id).not.toBe(first);
    expect(t.events.filter((e) => e.type === 'agent.spawned')).toHaveLength(1);
    expect(t.events.find((e) => e.type === 'session.reseeded')).toMatchObject({
      sessionId: s.id,
      previousSessionId: first,
      reason: 'overflow',
      generation: 1,
    });
    expect(notices(s).at(-1)).toMatchObject({
      code: 'context_reseeded',
      data: { reason: 'overflow', previousSessionId: first, agentSessionId: s.id, exchanges: 2, omitted: 0 },
    });
    // The thread shows what the user said, not the seed.
    expect(texts(s, 'user_message')).toEqual(['hello there', 'OVERFLOW now', 'and now?']);

    // What the fake model got: the fresh session's first prompt = the seed + the new message.
    const prompts = emuLog(log).filter((m) => m.method === 'session/prompt');
    expect(prompts.map((p) => p.params.sessionId)).toEqual([first, first, s.id]);
    const seeded = (prompts[2]!.params.prompt as { type: string; text: string }[]).map((b) => b.text).join('\n');
    expect(seeded).toMatch(
      /^\[Talaria\] This conversation continues from an earlier session \(the previous agent session ran out of context\)/,
    );
    expect(seeded).toContain('User: hello there\nAssistant: Hello from the fake model! You said: hello there');
    expect(seeded).toContain(
      'User: [a message of 12 characters; it overflowed the context and got no answer, so it is left out]',
    );
    expect(seeded).not.toContain('OVERFLOW');
    expect(seeded.endsWith('</transcript>\n\nand now?')).toBe(true);
    expect(texts(s).at(-1)).toMatch(/^Hello from the fake model! You said: \[Talaria\]/);

    // Later messages go to the new session as they are.
    expect((await s.prompt('one more').result).stopReason).toBe('end_turn');
    const last = emuLog(log)
      .filter((m) => m.method === 'session/prompt')
      .at(-1)!;
    expect(last.params).toMatchObject({ sessionId: s.id, prompt: [{ type: 'text', text: 'one more' }] });
    expect(texts(s).at(-1)).toMatch(/one more$/);
  });

  it('a slash command after an overflow goes to the old session as it is (Hermes /reset recovers it); the next message is still seeded', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const first = s.id;
    await s.prompt('OVERFLOW now').result;
    expect((await s.prompt('/help').result).stopReason).toBe('end_turn');
    expect(s.id).toBe(first);
    expect((await s.prompt('hi').result).error).toBeUndefined();
    expect(s.id).not.toBe(first);
    const prompts = emuLog(log).filter((m) => m.method === 'session/prompt');
    expect(prompts.map((p) => p.params.sessionId)).toEqual([first, first, s.id]);
    expect(prompts[1]!.params.prompt).toEqual([{ type: 'text', text: '/help' }]);
  });

  it('turns `HTTP 401` text into an auth error and `Error: …` text into an agent error', async () => {
    const t = makeHost();
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const auth = await s.prompt('AUTHFAIL').result;
    expect(auth.error).toMatchObject({ code: 'auth_error' });
    expect(auth.error!.message).toMatch(/HTTP 401/);
    // Real 0.18.2 keeps a failed message and merges the next prompt into it: each case gets its own session.
    const s2 = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const boom = await s2.prompt('ERROR the backend exploded').result;
    expect(boom.error).toMatchObject({ code: 'agent_error' });
    expect(boom.error!.message).toMatch(/the backend exploded/);
    const s3 = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const ok = await s3.prompt('plain text').result;
    expect(ok.error).toBeUndefined();
    expect(s.state).toBe('idle');
  });

  it('links the synthetic edit-approval and perm-check requests to the tool calls they concern', async () => {
    const t = makeHost();
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'ask' });
    const asked = waitSession(s, (e) => e.type === 'permission.asked');
    const write = s.prompt('WRITE out.txt');
    const ask = (await asked) as { requestKey: string; toolCallId: string };
    expect(ask.toolCallId).toBe('edit-approval-1');
    // The request is shown on the write call it concerns, not as a call of its own.
    const call = toolCalls(s).find((c) => c.title === `write: ${join(t.workspace, 'out.txt')}`)!;
    expect(call.toolCallId).toMatch(/^tc-/);
    expect(call.permission).toMatchObject({ status: 'pending' });
    expect(s.answerPermission(ask.requestKey, { choice: 'allow_once' })).toMatchObject({ ok: true });
    expect((await write.result).stopReason).toBe('end_turn');
    expect(existsSync(join(t.workspace, 'out.txt'))).toBe(true);
    expect(toolCalls(s).some((c) => c.toolCallId.startsWith('edit-approval'))).toBe(false);

    const asked2 = waitSession(s, (e) => e.type === 'permission.asked');
    const danger = s.prompt('DANGER');
    const ask2 = (await asked2) as { requestKey: string; toolCallId: string };
    expect(ask2.toolCallId).toBe('perm-check-1');
    const term = toolCalls(s).find((c) => c.title.startsWith('terminal: rm -rf'))!;
    expect(term.permission).toMatchObject({ status: 'pending' });
    s.answerPermission(ask2.requestKey, { choice: 'reject_once' });
    expect((await danger.result).stopReason).toBe('end_turn');
    expect(toolCalls(s).find((c) => c.toolCallId === term.toolCallId)).toMatchObject({
      status: 'failed',
      permission: { status: 'rejected' },
    });
    expect(
      toolCalls(s)
        .map((c) => c.toolCallId)
        .filter((id) => !id.startsWith('tc-')),
    ).toEqual([]);
  });

  it('an ask Hermes gave up on (it denies on its own after its timeout) is closed when the turn ends', async () => {
    const t = makeHost({ emu: { HERMES_EMU_PERMISSION_TIMEOUT_MS: '200' } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'ask' });
    const asked = waitSession(s, (e) => e.type === 'permission.asked');
    const turn = s.prompt('WRITE late.txt');
    const ask = (await asked) as { requestKey: string };
    expect((await turn.result).stopReason).toBe('end_turn');
    expect(s.pendingPermissions()).toEqual([]);
    expect(s.answerPermission(ask.requestKey, { choice: 'allow_once' })).toMatchObject({ ok: false });
    expect(existsSync(join(t.workspace, 'late.txt'))).toBe(false);
    expect(toolCalls(s)[0]).toMatchObject({ permission: { status: 'cancelled' } });
  });

  it('sends images (Hermes advertises them) and says when the model only gets a description', async () => {
    const png = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };
    const t = makeHost();
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    await s.prompt([{ type: 'text', text: 'look' }, png]).result;
    expect(texts(s).at(-1)).toMatch(/Image described by the auxiliary model: 1 image/);
    expect(notices(s).map((n) => n.code)).toContain('image_described');

    const vision = makeHost({
      hermesHome: hermesHome('model:\n  default: fake-model\n  provider: custom\n  supports_vision: true\n'),
    });
    const v = await vision.host.newSession({ provider: 'hermes', workspace: vision.workspace });
    await v.prompt([{ type: 'text', text: 'look' }, png]).result;
    expect(texts(v).at(-1)).toMatch(/Image forwarded to the model/);
    expect(notices(v)).toEqual([]);
  });

  it('skips the non-JSON line Hermes prints at the iteration limit', async () => {
    const bad: string[] = [];
    const t = makeHost({ onProtocolError: (_k, e) => bad.push(e.preview) });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'auto' });
    const r = await s.prompt('MAXITER').result;
    expect(r.stopReason).toBe('end_turn');
    expect(bad).toEqual(['⚠️  Reached maximum iterations (90). Requesting summary...']);
    expect(texts(s).at(-1)).toMatch(/Reached the iteration limit/);
  });

  it('0.21: messageIds, leftovers closed as failed, and no "Session is busy" on a mid-turn model switch', async () => {
    const frames: Frame[] = [];
    const t = makeHost({
      emu: { HERMES_EMU_VERSION: '0.21', HERMES_EMU_CATALOG: 'big', HERMES_EMU_SLOW_MS: '50' },
      onFrame: (_k, f) => frames.push(f),
    });
    writeFileSync(join(t.workspace, 'notes.txt'), 'n\n');
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'auto' });
    await s.prompt('TOOLS').result;
    const calls = toolCalls(s);
    expect(calls.map((c) => [c.status, c.settledBy])).toEqual([
      ['failed', 'agent'],
      ['completed', 'agent'],
      ['failed', 'agent'],
    ]);
    const messages = s.thread.entries.filter((e) => e.kind === 'assistant_message') as { messageId?: string }[];
    expect(messages.length).toBeGreaterThan(0);
    for (const m of messages) expect(m.messageId).toBeTruthy();

    const slow = s.prompt('SLOW');
    await waitSession(s, (e) => e.type === 'entry.updated' || e.type === 'entry.added');
    await s.setModel('nous:anthropic/claude-opus-5');
    expect((await slow.result).stopReason).toBe('end_turn');
    expect(s.catalog.model?.currentId).toBe('nous:anthropic/claude-opus-5');
    const setModel = frames.findIndex((f) => f.dir === 'client->agent' && f.msg.method === 'session/set_model');
    const prompt = frames.filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt').at(-1)!;
    const answered = frames.findIndex(
      (f) => f.dir === 'agent->client' && f.msg.id === prompt.msg.id && f.msg.method === undefined,
    );
    expect(setModel).toBeGreaterThan(answered);
    expect(
      frames.some(
        (f) =>
          f.dir === 'agent->client' && (f.msg.error as { message?: string } | undefined)?.message?.includes('busy'),
      ),
    ).toBe(false);
  });
});
