/**
 * "Steer now" through the host, against the Hermes emulator (0.18.2 behaviour): Hermes' /steer
 * only while a tool runs (it reaches the model in the tool result), else cancel + resend with the
 * partial answer; Hermes' own "⏩ Steer queued" reply never shows as model text.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Frame } from '../../src/protocol/types.js';
import { emuLog, makeHost, notices, scriptAgent, shutdownHosts, tempDir, texts, waitSession } from './helpers.js';

afterEach(shutdownHosts);

type Block = { type: string; text?: string };
const promptTexts = (log: string) =>
  emuLog(log)
    .filter((m) => m.method === 'session/prompt')
    .map((m) => (m.params.prompt as Block[]).map((b) => b.text ?? '').join('\n'));

describe('steer (Hermes emulator)', () => {
  it("while a tool runs: Hermes' /steer, which the model gets in the tool result; its queue reply is not shown", async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace, permissionMode: 'auto' });
    const toolStarted = waitSession(s, (e) => e.type === 'entry.added' && e.entry.kind === 'tool_call');
    const turn = s.prompt('TOOLSLOW please');
    await toolStarted;
    const r = await s.steer('use the other folder');
    expect(r).toEqual({ how: 'agent', via: '/steer' });
    expect((await turn.result).stopReason).toBe('end_turn');
    // What the model got: the steer inside the tool result (the emulator's model quotes it back).
    expect(texts(s).join('')).toContain(
      '[OUT-OF-BAND USER MESSAGE — a direct message from the user, delivered mid-turn; not tool output]\nuse the other folder',
    );
    expect(texts(s).join('')).not.toContain('Steer queued');
    expect(promptTexts(log)).toEqual(['TOOLSLOW please', '/steer use the other folder']);
    expect(notices(s).map((n) => [n.code, n.text])).toEqual([
      ['steered', 'Steered the running turn (/steer): use the other folder'],
    ]);
    expect(texts(s, 'user_message')).toEqual(['TOOLSLOW please']);
  });

  it('during plain text (where 0.18.2 would drop a /steer): cancel, then resend with the partial answer as context', async () => {
    const log = join(tempDir(), 'emu.log');
    const t = makeHost({ emu: { HERMES_EMU_LOG: log, HERMES_EMU_SLOW_MS: '40' } });
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const streaming = waitSession(s, (e) => e.type === 'entry.added' && e.entry.kind === 'assistant_message');
    const turn = s.prompt('SLOW tell me about ponds');
    await streaming;
    const r = await s.steer('make it about lakes');
    expect(r.how).toBe('resent');
    expect((await turn.result).stopReason).toBe('cancelled');
    expect((await r.turn!.result).stopReason).toBe('end_turn');
    const sent = promptTexts(log);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe('SLOW tell me about ponds');
    expect(sent[1]).toMatch(
      /^\[Talaria\] The user interrupted your answer to this message:\n<message>\nSLOW tell me about ponds\n<\/message>\nWhat you had answered so far:\n<partial_answer>\nThis/,
    );
    expect(
      sent[1]!.endsWith('</partial_answer>\nContinue with the correction that follows.\n\nmake it about lakes'),
    ).toBe(true);
    expect(sent.some((x) => x.startsWith('/steer'))).toBe(false);
    // The thread: the user's words, and a notice saying what happened.
    expect(texts(s, 'user_message')).toEqual(['SLOW tell me about ponds', 'make it about lakes']);
    expect(notices(s).find((n) => n.code === 'steered')).toMatchObject({
      text: 'Interrupted the running turn and resent it with your correction: make it about lakes',
    });
  });

  it('with nothing running a steer is a normal message', async () => {
    const t = makeHost();
    const s = await t.host.newSession({ provider: 'hermes', workspace: t.workspace });
    const r = await s.steer('hello');
    expect(r.how).toBe('prompt');
    expect((await r.turn!.result).stopReason).toBe('end_turn');
    expect(texts(s).at(-1)).toBe('Hello from the fake model! You said: hello');
  });
});

describe('steer (an agent with `_session/steering`, as claude-agent-acp)', () => {
  const sdkAgent = () => scriptAgent('steerable', '../sdk-agent.ts');

  it('uses the agent steering when it advertises it: the running turn takes the message', async () => {
    const frames: Frame[] = [];
    const t = makeHost({
      providers: [sdkAgent()],
      emu: { SDK_AGENT_STEERING: '1' },
      onFrame: (_k, f) => frames.push(f),
    });
    const s = await t.host.newSession({ provider: 'steerable', workspace: t.workspace });
    const ticking = waitSession(s, (e) => e.type === 'entry.added' && e.entry.kind === 'assistant_message');
    const turn = s.prompt('slow');
    await ticking;
    const r = await s.steer('stop ticking');
    expect(r).toEqual({ how: 'agent', via: '_session/steering' });
    expect((await turn.result).stopReason).toBe('end_turn');
    // What the agent's model got: the steer inside the same turn.
    expect(texts(s).join('')).toMatch(/ steered with: stop ticking$/);
    const sent = frames.filter((f) => f.dir === 'client->agent' && f.msg.method === '_session/steering');
    // Opted into promptRequired: a steer that races the turn's end comes back to be prompted, never a detached agent turn.
    expect(sent.map((f) => f.msg.params)).toEqual([
      {
        sessionId: s.id,
        prompt: [{ type: 'text', text: 'stop ticking' }],
        _meta: { steering: { idleBehavior: 'promptRequired' } },
      },
    ]);
    expect(frames.filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/cancel')).toHaveLength(0);
    expect(notices(s).map((n) => n.text)).toEqual(['Steered the running turn (_session/steering): stop ticking']);
  });

  it('without it, the same agent is cancelled and sent the message with the partial answer', async () => {
    const frames: Frame[] = [];
    const t = makeHost({ providers: [sdkAgent()], onFrame: (_k, f) => frames.push(f) });
    const s = await t.host.newSession({ provider: 'steerable', workspace: t.workspace });
    // Two ticks streamed before the steer: the resent message must carry them as the partial answer.
    const ticking = waitSession(
      s,
      (e) =>
        (e.type === 'entry.added' || e.type === 'entry.updated') &&
        e.entry.kind === 'assistant_message' &&
        e.entry.text.includes('tick tick'),
    );
    const turn = s.prompt('slow');
    await ticking;
    const r = await s.steer('stop ticking');
    expect(r.how).toBe('resent');
    expect((await turn.result).stopReason).toBe('cancelled');
    expect((await r.turn!.result).stopReason).toBe('end_turn');
    const prompts = frames
      .filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt')
      .map((f) => (f.msg.params as { prompt: Block[] }).prompt[0]!.text!);
    expect(prompts[1]).toMatch(
      /^\[Talaria\] The user interrupted your answer to this message:\n<message>\nslow\n<\/message>\nWhat you had answered so far:\n<partial_answer>\ntick tick/,
    );
    expect(prompts[1]!.endsWith('\n\nstop ticking')).toBe(true);
    expect(frames.some((f) => f.msg.method === '_session/steering')).toBe(false);
  });
});
