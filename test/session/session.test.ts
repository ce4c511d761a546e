import { describe, it, expect, afterEach } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AcpClient } from '../../src/session/client.js';
import { checkEvent } from '../../src/session/events.js';
import { isTalariaError } from '../../src/protocol/errors.js';
import type { Frame } from '../../src/protocol/types.js';
import { expectValidWire, type ExpectValidWireOptions, type WireReport } from '../fakes/wire.js';
import { spawnFake, record, waitFor, assistantText } from './helpers.js';
import { nodeArgs } from '../prebuilt.js';

let clients: AcpClient[] = [];
/** Every fake's recorded frames; checked against the ACP schema after each test unless the test did. */
let wires: Array<{ frames: Frame[]; checked: boolean }> = [];
async function fake(opts: Parameters<typeof spawnFake>[0] = {}) {
  const r = await spawnFake(opts);
  clients.push(r.client);
  wires.push({ frames: r.frames, checked: false });
  return r;
}
/** Checks a fake's traffic now (for tests that provoke violations on purpose). */
function checkWire(frames: Frame[], opts?: ExpectValidWireOptions): WireReport {
  const w = wires.find((x) => x.frames === frames);
  if (w) w.checked = true;
  return expectValidWire(frames, opts);
}
afterEach(async () => {
  await Promise.all(clients.map((c) => c.close()));
  clients = [];
  const pending = wires.filter((w) => !w.checked);
  wires = [];
  for (const w of pending) expectValidWire(w.frames);
});

describe('Session over a real SDK agent process', () => {
  it('holds every update sent before the prompt response when the turn resolves (1,000 updates)', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const events = record(s);
    const result = await s.prompt('flood 1000').result;
    expect(result.stopReason).toBe('end_turn');
    const msg = s.thread.entries.find((e) => e.kind === 'assistant_message');
    expect(msg && msg.kind === 'assistant_message' ? msg.text.split(',').length - 1 : 0).toBe(1000);
    // turn.ended is emitted after every entry event of the turn
    const endIdx = events.findIndex((e) => e.type === 'turn.ended');
    expect(events.slice(endIdx + 1).filter((e) => e.type === 'entry.updated')).toHaveLength(0);
    for (const e of events) expect(checkEvent(e)).toBeNull();
  });

  it('keeps extra response fields and reports per-turn usage and context', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const r = await s.prompt('hello').result;
    expect(r.usage).toEqual({ inputTokens: 10, outputTokens: 1, totalTokens: 11 });
    expect((r.response as { _meta?: unknown })._meta).toEqual({ extra: 'kept' });
    expect(s.thread.context.size).toBe(1000);
    expect(assistantText(s)).toBe('echo: hello');
  });

  it('turns cumulative usage into per-turn figures when the hooks say so', async () => {
    const { client, cwd } = await fake({ env: { SDK_AGENT_USAGE: 'cumulative' }, hooks: { usageMode: 'cumulative' } });
    const s = await client.newSession({ cwd });
    const a = await s.prompt('one').result;
    const b = await s.prompt('two').result;
    expect(a.usage?.inputTokens).toBe(10);
    expect(b.usage?.inputTokens).toBe(10);
  });

  it('queues prompts sent while a turn runs and never sends two prompts at once', async () => {
    const { client, cwd, frames } = await fake();
    const s = await client.newSession({ cwd });
    const t1 = s.prompt('flood 200');
    const t2 = s.prompt('second');
    const t3 = s.prompt('third');
    expect(s.queued.map((t) => t.id)).toEqual([t2.id, t3.id]);
    const results = await Promise.all([t1.result, t2.result, t3.result]);
    expect(results.map((r) => r.stopReason)).toEqual(['end_turn', 'end_turn', 'end_turn']);
    expect(assistantText(s)).toContain('echo: second|echo: third');
    // On the wire: each session/prompt is sent only after the previous response arrived.
    let open = 0;
    for (const f of frames) {
      if (f.dir === 'client->agent' && f.msg.method === 'session/prompt') open++;
      if (f.dir === 'agent->client' && f.msg.result && (f.msg.result as { stopReason?: string }).stopReason) open--;
      expect(open).toBeLessThanOrEqual(1);
    }
    expect(s.state).toBe('idle');
  });

  it('cancel: sends session/cancel, keeps streamed text, settles the open tool call cancelled, drops the queue', async () => {
    const { client, cwd, frames } = await fake();
    const s = await client.newSession({ cwd });
    const t = s.prompt('slow');
    const queued = s.prompt('never runs');
    await waitFor(
      s,
      (e) => e.type === 'entry.updated' && (e.entry as { text?: string }).text?.includes('tick tick') === true,
    );
    const states: string[] = [];
    s.subscribe((e) => e.type === 'session.state' && states.push(e.state));
    const cancelled = s.cancel();
    const [r, q] = await Promise.all([t.result, queued.result]);
    expect(await cancelled).toBe(r);
    expect(r.stopReason).toBe('cancelled');
    expect(q).toMatchObject({ stopReason: 'cancelled', dropped: true });
    expect(assistantText(s)).toContain('tick');
    const tool = s.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool).toMatchObject({ status: 'cancelled', settledBy: 'cancel' });
    expect(frames.some((f) => f.msg.method === 'session/cancel')).toBe(true);
    expect(frames.filter((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt')).toHaveLength(1);
    expect(states).toEqual(['cancelling', 'idle']);
  });

  it('accepts late updates after a cancel', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const t = s.prompt('slow late');
    await waitFor(s, (e) => e.type === 'entry.updated');
    void s.cancel();
    const r = await t.result;
    expect(r.stopReason).toBe('cancelled');
    expect(assistantText(s)).toContain('late text');
  });

  it('settles tool calls the agent never closed when the turn ends', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    await s.prompt('tools').result;
    const read = s.thread.entries.find((e) => e.kind === 'tool_call' && e.toolCallId === 'read-1');
    const run = s.thread.entries.find((e) => e.kind === 'tool_call' && e.toolCallId === 'run-1');
    expect(read).toMatchObject({ status: 'completed', settledBy: 'turn_end', title: 'read: notes.txt' });
    expect(run).toMatchObject({ status: 'completed', settledBy: 'agent' });
  });

  it('keeps unknown update kinds as entries', async () => {
    const { client, cwd, frames } = await fake();
    const s = await client.newSession({ cwd });
    await s.prompt('unknown').result;
    const u = s.thread.entries.find((e) => e.kind === 'unknown');
    expect(u).toMatchObject({ sessionUpdate: 'future_kind' });
    expect(assistantText(s)).toBe('after unknown');
    // The fake sends an off-schema kind on purpose: exactly that frame is the one violation.
    const wire = checkWire(frames, { except: (v) => v.message.includes('"future_kind"') });
    expect(wire.excepted.map((v) => `${v.method} ${v.path}`)).toEqual(['session/update /params/update']);
  });

  it('routes updates that arrive before the session/new response into the new session', async () => {
    const { client, cwd } = await fake({ env: { SDK_AGENT_EARLY: '1' } });
    const s = await client.newSession({ cwd });
    expect(s.thread.availableCommands).toHaveLength(1);
    expect(assistantText(s)).toBe('welcome');
  });

  it('asks for permission, answers with an offered option and records it on the tool call', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const target = join(cwd, 'out.txt');
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm ${target}`);
    const ev = await asked;
    if (ev.type !== 'permission.asked') throw new Error('unreachable');
    expect(s.pendingPermissions()).toHaveLength(1);
    expect(s.answerPermission(ev.requestKey, { choice: 'allow_once' })).toMatchObject({ ok: true });
    // A second answer from another client loses.
    expect(s.answerPermission(ev.requestKey, { choice: 'reject_once' })).toMatchObject({ ok: false });
    await t.result;
    expect(assistantText(s)).toBe('permission: yes');
    const tool = s.thread.entries.find((e) => e.kind === 'tool_call');
    expect(tool).toMatchObject({ status: 'completed', permission: { status: 'allowed', optionId: 'yes' } });
  });

  it('auto mode allows an edit inside the roots without asking; sensitive paths still ask', async () => {
    const { client, cwd } = await fake({ permission: { mode: 'auto' } });
    const s = await client.newSession({ cwd });
    await s.prompt(`perm ${join(cwd, 'a.txt')}`).result;
    expect(assistantText(s)).toBe('permission: yes');
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm ${join(cwd, '.env')}`);
    const ev = await asked;
    if (ev.type !== 'permission.asked') throw new Error('unreachable');
    s.answerPermission(ev.requestKey, { choice: 'reject_once' });
    await t.result;
    expect(assistantText(s)).toContain('permission: no');
  });

  it('an "always" answer adds a rule that allows the same request next time', async () => {
    const rules: unknown[] = [];
    const { client, cwd } = await fake({ onRule: (_id, r) => rules.push(r) });
    const s = await client.newSession({ cwd });
    const target = join(cwd, 'same.txt');
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm ${target}`);
    const ev = await asked;
    if (ev.type !== 'permission.asked') throw new Error('unreachable');
    s.answerPermission(ev.requestKey, { choice: 'allow_always' });
    await t.result;
    expect(rules).toHaveLength(1);
    const r2 = await s.prompt(`perm ${target}`).result;
    expect(r2.stopReason).toBe('end_turn');
    expect(assistantText(s)).toBe('permission: always|permission: yes');
  });

  it('cancel answers a pending permission request cancelled', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const asked = waitFor(s, (e) => e.type === 'permission.asked');
    const t = s.prompt(`perm ${join(cwd, 'x.txt')}`);
    await asked;
    void s.cancel();
    const r = await t.result;
    expect(r.stopReason).toBe('cancelled');
    expect(assistantText(s)).toBe('permission: cancelled');
    expect(s.pendingPermissions()).toHaveLength(0);
  });

  it('a JSON-RPC error ends the turn with agent_error carrying the detail; the session stays usable', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const r = await s.prompt('fail').result;
    expect(r.stopReason).toBe('error');
    expect(r.error?.code).toBe('agent_error');
    expect(r.error?.message).toContain('model exploded');
    expect(s.state).toBe('idle');
    expect((await s.prompt('again').result).stopReason).toBe('end_turn');
  });

  it('a crash mid-turn ends the turn agent_crashed with the stderr tail and fails the session', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    const t = s.prompt('crash');
    const queued = s.prompt('after');
    const r = await t.result;
    expect(r.stopReason).toBe('error');
    expect(r.error?.code).toBe('agent_crashed');
    expect(JSON.stringify(r.error?.data)).toContain('simulated crash');
    expect(assistantText(s)).toBe('about to crash');
    expect((await queued.result).error?.code).toBe('agent_crashed');
    expect(s.state).toBe('failed');
    expect(() => s.prompt('x')).toThrow(/failed/);
  });

  it('withholds images from an agent that does not accept them, with a visible notice', async () => {
    const { client, cwd } = await fake({ env: { SDK_AGENT_NO_IMAGE: '1' } });
    const s = await client.newSession({ cwd });
    await s.prompt([
      { type: 'text', text: 'image' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ]).result;
    expect(assistantText(s)).toBe('images: 0');
    expect(s.thread.entries.some((e) => e.kind === 'notice' && e.code === 'image_withheld')).toBe(true);
  });

  it('sends images to an agent that accepts them', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    await s.prompt([
      { type: 'text', text: 'image' },
      { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' },
    ]).result;
    expect(assistantText(s)).toBe('images: 1');
  });
});

describe('Session lifecycle and catalog', () => {
  it('switches model and mode through configOptions', async () => {
    const { client, cwd, frames } = await fake();
    const s = await client.newSession({ cwd });
    expect(s.catalog.model?.source).toBe('config');
    expect(s.catalog.model?.currentId).toBe('m-small');
    await s.setModel('m-large');
    await s.setMode('yolo');
    expect(s.catalog.model?.currentId).toBe('m-large');
    expect(s.catalog.mode?.currentId).toBe('yolo');
    expect(frames.filter((f) => f.msg.method === 'session/set_config_option')).toHaveLength(2);
    await expect(s.setModel('nope')).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('switches model and mode through the legacy methods when the agent has no configOptions', async () => {
    const { client, cwd, frames } = await fake({ env: { SDK_AGENT_LEGACY: '1' } });
    const s = await client.newSession({ cwd });
    expect(s.catalog.model?.source).toBe('legacy');
    await s.setModel('m-large');
    await s.setMode('yolo');
    expect(frames.some((f) => f.msg.method === 'session/set_model')).toBe(true);
    expect(frames.some((f) => f.msg.method === 'session/set_mode')).toBe(true);
    // session/set_model left the schema: listed, not failed; everything else must be valid.
    expect(checkWire(frames).unknownMethods.map((m) => m.method)).toEqual(['session/set_model']);
    expect(s.catalog.model?.currentId).toBe('m-large');
    expect(s.catalog.mode?.currentId).toBe('yolo');
  });

  it('loads a session: the replayed history lands in a fresh thread', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    await s.prompt('hello').result;
    await client.closeSession(s);
    const loaded = await client.loadSession(s.id, { cwd });
    const kinds = loaded.thread.entries.map((e) => e.kind);
    expect(kinds).toEqual(['user_message', 'assistant_message']);
    expect(assistantText(loaded)).toBe('echo: hello');
  });

  it('load of an unknown session is session_not_found', async () => {
    const { client, cwd } = await fake();
    await expect(client.loadSession('nope', { cwd })).rejects.toSatisfy((e: unknown) =>
      isTalariaError(e, 'session_not_found'),
    );
    expect(client.sessions.has('nope')).toBe(false);
  });

  it('lists sessions following cursors, filtered by cwd', async () => {
    const { client, cwd } = await fake();
    for (let i = 0; i < 5; i++) await client.newSession({ cwd });
    await client.newSession({ cwd: '/elsewhere' });
    const all = await client.listSessions();
    const mine = await client.listSessions({ cwd });
    expect(all).toHaveLength(6);
    expect(mine).toHaveLength(5);
  });

  it('resume reopens a session without replay', async () => {
    const { client, cwd } = await fake();
    const s = await client.newSession({ cwd });
    await s.prompt('hi').result;
    await client.closeSession(s);
    const r = await client.resumeSession(s.id, { cwd });
    expect(r.thread.entries).toHaveLength(0);
    expect((await r.prompt('again').result).stopReason).toBe('end_turn');
  });

  it('refuses lifecycle calls the agent did not advertise', async () => {
    const { client, cwd } = await fake();
    await expect(client.forkSession('x', { cwd })).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('closing a session closes it on the agent and rejects further prompts', async () => {
    const { client, cwd, frames } = await fake();
    const s = await client.newSession({ cwd });
    await client.closeSession(s);
    expect(frames.some((f) => f.msg.method === 'session/close')).toBe(true);
    expect(s.state).toBe('closed');
    expect(() => s.prompt('x')).toThrow(/closed/);
  });

  it('fs requests from the agent are confined to the session roots', async () => {
    const { client, cwd } = await fake();
    writeFileSync(join(cwd, 'notes.txt'), 'hello');
    await client.newSession({ cwd });
    expect(client.capabilities.supportsLoad).toBe(true);
  });
});

describe('Session against a dirty stdout', () => {
  it('reports malformed frames as protocol.error events and the turn still completes', async () => {
    const { AcpClient } = await import('../../src/session/client.js');
    const { fileURLToPath } = await import('node:url');
    const { tempDir } = await import('./helpers.js');
    const cwd = tempDir();
    const client = await AcpClient.spawn({
      command: process.execPath,
      args: nodeArgs(fileURLToPath(new URL('../fakes/bin/garbage-stdout.ts', import.meta.url))),
      cwd,
    });
    clients.push(client);
    const errors: string[] = [];
    client.subscribe((e) => e.type === 'protocol.error' && errors.push(e.kind));
    const s = await client.newSession({ cwd });
    const r = await s.prompt('hi').result;
    expect(r.stopReason).toBe('end_turn');
    expect(assistantText(s)).toBe('still alive');
    expect(errors).toContain('non_json');
    expect(errors).toContain('invalid_jsonrpc');
  });
});
