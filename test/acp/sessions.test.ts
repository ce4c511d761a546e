/**
 * The sessions `talaria acp` serves an editor: what the agent said before the editor came (its
 * slash commands, usage) reaches it right after session/new; a session an editor comes back to is
 * not left archived; session/list shows this agent's conversations only.
 */
import { describe, expect, it, vi } from 'vitest';
import { runCli, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { HERMES, editorEnv, startEditor, type Editor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true } },
  clientInfo: { name: 'test-editor', version: '1' },
};
const hello = [{ type: 'text', text: 'hello' }];

/** The kinds of the session's updates the editor got between the session/new answer and its first prompt. */
function afterNew(ed: Editor, sessionId: string): string[] {
  const answered = ed.frames.findIndex(
    (f) => f.dir === 'agent->client' && (f.msg.result as { sessionId?: string } | undefined)?.sessionId === sessionId,
  );
  const prompted = ed.frames.findIndex((f) => f.dir === 'client->agent' && f.msg.method === 'session/prompt');
  expect(answered).toBeGreaterThanOrEqual(0);
  return ed.frames
    .slice(answered + 1, prompted < 0 ? undefined : prompted)
    .filter((f) => f.msg.method === 'session/update' && (f.msg.params as { sessionId: string }).sessionId === sessionId)
    .map((f) => (f.msg.params as { update: { sessionUpdate: string } }).update.sessionUpdate);
}

async function listed(cwd: string, env: Record<string, string>): Promise<string[]> {
  const r = await runCli(['sessions', 'list', '--json'], { cwd, env });
  expect(r.code, r.stderr).toBe(0);
  return (JSON.parse(r.stdout) as { sessions: { id: string }[] }).sessions.map((s) => s.id);
}

describe.concurrent('talaria acp: sessions as the editor sees them', () => {
  it('the commands and usage the demo agent sent the warm session reach the editor right after session/new', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-state');
    const ed = startEditor(['--agent', 'demo'], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    await ed.until(() => afterNew(ed, s.sessionId).includes('usage_update'), 'the usage after session/new');
    expect(afterNew(ed, s.sessionId)).toEqual(expect.arrayContaining(['available_commands_update', 'usage_update']));
    const commands = ed.frames
      .map((f) => f.msg.params as any)
      .find((p) => p?.sessionId === s.sessionId && p.update?.sessionUpdate === 'available_commands_update');
    expect(commands.update.availableCommands.length).toBeGreaterThan(0);
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames);
  });

  it("Hermes' commands and usage reach the editor too", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-state-hermes');
    const ed = startEditor(['--agent-cmd', `env HERMES_HOME=${env.HERMES_HOME} ${HERMES} acp`], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    await ed.until(
      () => afterNew(ed, s.sessionId).includes('available_commands_update'),
      'the commands after session/new',
    );
    await ed.until(() => afterNew(ed, s.sessionId).includes('usage_update'), 'the usage after session/new');
    expect(await ed.close()).toBe(0);
    expectValidWire(ed.frames);
  });

  it('a session made empty by one editor and resumed and prompted by the next is not left archived', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-archive');
    // `acpx sessions new`: a session, no prompt, the editor leaves (Talaria archives the empty session).
    const first = startEditor(['--agent', 'demo'], { cwd, env });
    await first.request('initialize', INIT);
    const { sessionId } = await first.request<any>('session/new', { cwd, mcpServers: [] });
    expect(await first.close()).toBe(0);
    expect(await listed(cwd, env)).not.toContain(sessionId);

    for (const method of ['session/resume', 'session/load']) {
      const next = startEditor(['--agent', 'demo'], { cwd, env });
      await next.request('initialize', INIT);
      await next.request(method, { sessionId, cwd, mcpServers: [] });
      expect((await next.request<any>('session/prompt', { sessionId, prompt: hello })).stopReason).toBe('end_turn');
      const own = (await next.request<any>('session/list', { cwd })).sessions.map(
        (x: { sessionId: string }) => x.sessionId,
      );
      expect(own).toContain(sessionId);
      expect(await next.close()).toBe(0);
      expect(await listed(cwd, env)).toContain(sessionId);
    }
  });

  it("session/list shows the wrapped agent's conversations: not another agent's, not another editor's unused session", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-list');
    const demo = startEditor(['--agent', 'demo'], { cwd, env });
    await demo.request('initialize', INIT);
    const talked = (await demo.request<any>('session/new', { cwd, mcpServers: [] })).sessionId as string;
    await demo.request('session/prompt', { sessionId: talked, prompt: hello });
    // Another editor, still running, that never made a session: its warm one is recorded, unused.
    const idle = startEditor(['--agent', 'demo'], { cwd, env });
    await idle.request('initialize', INIT);
    const unused = (await listed(cwd, env)).filter((id) => id !== talked);
    expect(unused.length).toBeGreaterThan(0);

    const hermes = startEditor(['--agent-cmd', `env HERMES_HOME=${env.HERMES_HOME} ${HERMES} acp`], { cwd, env });
    await hermes.request('initialize', INIT);
    const fresh = (await hermes.request<any>('session/new', { cwd, mcpServers: [] })).sessionId as string;
    const ids = async (ed: Editor, p: Record<string, unknown>) =>
      (await ed.request<any>('session/list', p)).sessions.map((x: { sessionId: string }) => x.sessionId) as string[];
    // Its own new session (no turn yet) is the editor's; the demo ones are not Hermes'.
    for (const p of [{ cwd }, {}]) expect(await ids(hermes, p)).toEqual([fresh]);

    const again = startEditor(['--agent', 'demo'], { cwd, env });
    await again.request('initialize', INIT);
    for (const p of [{ cwd }, {}]) {
      const seen = await ids(again, p);
      expect(seen).toContain(talked);
      for (const id of [...unused, fresh]) expect(seen).not.toContain(id);
    }
    for (const ed of [demo, idle, hermes, again]) expect(await ed.close()).toBe(0);
  });
});
