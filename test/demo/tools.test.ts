import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as acp from '@agentclientprotocol/sdk';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  allow,
  cancelledOutcome,
  contentText,
  spawnDemo,
  tempDir,
  textOf,
  toolCalls,
  type DemoPeer,
} from './harness.js';

const EDIT_LINE = 'Edited by the Talaria demo agent.\n';

describe('demo agent: read, edit/write, run, tour', () => {
  let peer: DemoPeer;
  let root: string;
  let cwd: string;
  let sessionId: string;

  async function prompt(t: string): Promise<{ stop: acp.StopReason; ups: acp.SessionUpdate[] }> {
    const from = peer.updates.length;
    const r = await peer.agent.request(acp.methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text: t }],
    });
    return { stop: r.stopReason, ups: peer.of(sessionId, from) };
  }
  const statuses = (ups: acp.SessionUpdate[], id: string): unknown[] =>
    ups.flatMap((u) =>
      (u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.toolCallId === id && u.status
        ? [u.status]
        : [],
    );

  beforeAll(async () => {
    root = tempDir('tools');
    peer = await spawnDemo({ TALARIA_DEMO_HOME: tempDir('tools-home') });
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

  it('read FILE inside cwd: read tool call pending → in_progress → completed with the text', async () => {
    writeFileSync(join(cwd, 'notes.txt'), 'line one\nline two\n');
    const { stop, ups } = await prompt('read notes.txt');
    expect(stop).toBe('end_turn');
    const [call] = toolCalls(ups);
    expect(call).toMatchObject({ kind: 'read', status: 'completed', locations: [{ path: join(cwd, 'notes.txt') }] });
    expect(statuses(ups, call!.id)).toEqual(['pending', 'in_progress', 'completed']);
    expect(contentText(call!.content)).toBe('line one\nline two\n');
    expect(peer.permissions).toHaveLength(0); // reads need no permission
  });

  it("read counts a file's lines: a final newline ends the last line, it does not start another", async () => {
    const cases: [string, string][] = [
      ['two-nl.txt', 'first line\nsecond line\n'],
      ['two.txt', 'first line\nsecond line'],
      ['one-nl.txt', 'only\n'],
      ['empty.txt', ''],
    ];
    const said: string[] = [];
    for (const [name, text] of cases) {
      writeFileSync(join(cwd, name), text);
      said.push(textOf((await prompt(`read ${name}`)).ups).trim());
    }
    expect(said).toEqual([
      'I read two-nl.txt: 2 lines.',
      'I read two.txt: 2 lines.',
      'I read one-nl.txt: 1 line.',
      'I read empty.txt: 0 lines.',
    ]);
  });

  it('read outside cwd is refused as a failed tool call (.., absolute path, symlink)', async () => {
    writeFileSync(join(root, 'secret.txt'), 'top secret');
    symlinkSync(join(root, 'secret.txt'), join(cwd, 'link.txt'));
    for (const target of ['../secret.txt', join(root, 'secret.txt'), 'link.txt']) {
      const { stop, ups } = await prompt(`read ${target}`);
      expect(stop).toBe('end_turn');
      const [call] = toolCalls(ups);
      expect(call?.status).toBe('failed');
      expect(contentText(call!.content)).toMatch(/outside the session folder/);
      expect(JSON.stringify(ups)).not.toContain('top secret');
    }
  });

  it('read of a missing file fails the tool call', async () => {
    const { ups } = await prompt('read nope.txt');
    const [call] = toolCalls(ups);
    expect(call?.status).toBe('failed');
    expect(contentText(call!.content)).toMatch(/not found/);
  });

  it('edit allowed: diff, a real permission request with allow/always/reject, then the file is written', async () => {
    writeFileSync(join(cwd, 'a.txt'), 'hello\n');
    const { ups } = await prompt('edit a.txt');
    expect(peer.permissions).toHaveLength(1);
    const req = peer.permissions[0]!;
    expect(req.sessionId).toBe(sessionId);
    expect(req.options.map((o) => [o.optionId, o.kind])).toEqual([
      ['allow', 'allow_once'],
      ['always', 'allow_always'],
      ['reject', 'reject_once'],
    ]);
    expect(req.toolCall.kind).toBe('edit');
    const [call] = toolCalls(ups);
    expect(call?.kind).toBe('edit');
    expect(call?.content[0]).toEqual({
      type: 'diff',
      path: join(cwd, 'a.txt'),
      oldText: 'hello\n',
      newText: `hello\n${EDIT_LINE}`,
    });
    expect(statuses(ups, call!.id)).toEqual(['pending', 'in_progress', 'completed']);
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe(`hello\n${EDIT_LINE}`);
  });

  it('edit rejected (or a cancelled outcome outside a cancel) fails with "denied" and leaves the file untouched', async () => {
    writeFileSync(join(cwd, 'a.txt'), 'keep me\n');
    for (const answer of [allow('reject'), cancelledOutcome]) {
      peer.answer = () => answer;
      const { stop, ups } = await prompt('edit a.txt');
      expect(stop).toBe('end_turn');
      const [call] = toolCalls(ups);
      expect(call?.status).toBe('failed');
      expect(contentText(call!.content)).toMatch(/denied/i);
      expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('keep me\n');
    }
  });

  it('write FILE TEXT creates a file; "always" stops further questions of that kind', async () => {
    peer.answer = () => allow('always');
    await prompt('write new.txt Hello world');
    expect(readFileSync(join(cwd, 'new.txt'), 'utf8')).toBe('Hello world\n');
    expect(peer.permissions).toHaveLength(1);
    await prompt('edit new.txt');
    expect(peer.permissions).toHaveLength(1);
    expect(readFileSync(join(cwd, 'new.txt'), 'utf8')).toBe(`Hello world\n${EDIT_LINE}`);
  });

  it('write outside cwd is refused without asking', async () => {
    const { ups } = await prompt('write ../escape.txt nope');
    expect(toolCalls(ups)[0]?.status).toBe('failed');
    expect(peer.permissions).toHaveLength(0);
    expect(existsSync(join(root, 'escape.txt'))).toBe(false);
  });

  it('run CMD: execute tool call with rawInput, permission, output streamed, completed on exit 0', async () => {
    writeFileSync(join(cwd, 'marker'), '');
    const { ups } = await prompt('run echo out && ls && echo err >&2');
    expect(peer.permissions).toHaveLength(1);
    expect(peer.permissions[0]?.toolCall.kind).toBe('execute');
    const [call] = toolCalls(ups);
    expect(call).toMatchObject({
      kind: 'execute',
      status: 'completed',
      rawInput: { command: 'echo out && ls && echo err >&2' },
    });
    const text = contentText(call!.content);
    expect(text).toContain('out');
    expect(text).toContain('marker'); // ran in the session cwd
    expect(text).toContain('err');
    expect(call?.rawOutput).toMatchObject({ exitCode: 0 });
  });

  it('run failing command → failed with the exit code; rejected run never executes', async () => {
    const { ups } = await prompt('run echo partial; exit 3');
    const [call] = toolCalls(ups);
    expect(call?.status).toBe('failed');
    expect(contentText(call!.content)).toMatch(/partial[\s\S]*exit code 3/);

    peer.answer = () => allow('reject');
    const r = await prompt('run touch should-not-exist');
    expect(toolCalls(r.ups)[0]?.status).toBe('failed');
    expect(contentText(toolCalls(r.ups)[0]!.content)).toMatch(/denied/i);
    expect(existsSync(join(cwd, 'should-not-exist'))).toBe(false);
  });

  it('a permission request the client answers with an error counts as denied', async () => {
    writeFileSync(join(cwd, 'a.txt'), 'keep\n');
    peer.answer = () => {
      throw new Error('client exploded');
    };
    const { stop, ups } = await prompt('edit a.txt');
    expect(stop).toBe('end_turn');
    expect(toolCalls(ups)[0]?.status).toBe('failed');
    expect(readFileSync(join(cwd, 'a.txt'), 'utf8')).toBe('keep\n');
  });

  it('mode auto edits and runs without asking', async () => {
    await peer.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: 'mode', value: 'auto' });
    const { ups } = await prompt('run echo auto > auto.txt');
    expect(toolCalls(ups)[0]?.status).toBe('completed');
    expect(peer.permissions).toHaveLength(0);
    expect(readFileSync(join(cwd, 'auto.txt'), 'utf8')).toBe('auto\n');
  });

  it('tour: thought, text, plan, read, edit and run (each with permission) in one turn', async () => {
    writeFileSync(join(cwd, 'README.md'), '# Demo project\n');
    const { stop, ups } = await prompt('tour');
    expect(stop).toBe('end_turn');
    const kinds = ups.map((u) => u.sessionUpdate);
    expect(kinds[0]).toBe('agent_thought_chunk');
    expect(kinds.indexOf('agent_message_chunk')).toBeLessThan(kinds.indexOf('plan'));
    const calls = toolCalls(ups);
    expect(calls.map((c) => [c.kind, c.status])).toEqual([
      ['read', 'completed'],
      ['edit', 'completed'],
      ['execute', 'completed'],
    ]);
    expect(contentText(calls[0]!.content)).toBe('# Demo project\n');
    expect(contentText(calls[2]!.content)).toContain('Hello from the Talaria demo agent');
    expect(peer.permissions.map((p) => p.toolCall.kind)).toEqual(['edit', 'execute']);
    expect(readFileSync(join(cwd, 'talaria-demo.txt'), 'utf8')).toBe(EDIT_LINE);
    const plans = ups.flatMap((u) => (u.sessionUpdate === 'plan' ? [u.entries.map((e) => e.status)] : []));
    expect(plans.at(-1)).toEqual(['completed', 'completed', 'completed']);
    expect(textOf(ups)).toMatch(/tour/);
  });
});

describe('demo agent: limits', () => {
  let peer: DemoPeer;
  let cwd: string;
  let sessionId: string;
  beforeAll(async () => {
    cwd = tempDir('limits');
    peer = await spawnDemo({
      TALARIA_DEMO_HOME: tempDir('limits-home'),
      TALARIA_DEMO_RUN_TIMEOUT_MS: '300',
      TALARIA_DEMO_MAX_OUTPUT_BYTES: '1000',
      TALARIA_DEMO_MAX_READ_BYTES: '10',
    });
    sessionId = (await peer.newSession(cwd)).sessionId;
  });
  afterEach(() => expect(peer.violations.splice(0)).toEqual([]));
  afterAll(async () => {
    if (peer.child.exitCode === null) await peer.end();
  });
  async function calls(t: string): Promise<ReturnType<typeof toolCalls>> {
    const from = peer.updates.length;
    await peer.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt: [{ type: 'text', text: t }] });
    return toolCalls(peer.of(sessionId, from));
  }

  it('a command past the timeout is killed and fails', async () => {
    const [call] = await calls('run exec sleep 60');
    expect(call?.status).toBe('failed');
    expect(contentText(call!.content)).toMatch(/timed out after 300 ms/);
    expect(call?.rawOutput).toMatchObject({ timedOut: true });
  });

  it('command output is capped', async () => {
    const [call] = await calls("run head -c 5000 /dev/zero | tr '\\0' a");
    expect(call?.status).toBe('completed');
    expect(contentText(call!.content)).toBe(`${'a'.repeat(1000)}\n… (output truncated by the demo agent)`);
    expect(call?.rawOutput).toMatchObject({ truncated: true });
  });

  it('reads are capped', async () => {
    writeFileSync(join(cwd, 'big.txt'), 'x'.repeat(50));
    const [call] = await calls('read big.txt');
    expect(call?.status).toBe('completed');
    expect(contentText(call!.content)).toBe(`${'x'.repeat(10)}\n… (truncated by the demo agent)`);
  });
});
