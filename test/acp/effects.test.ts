/**
 * An effect Talaria gates for the agent (fs/write_text_file, terminal/create sent without asking
 * first) has no agent permission request behind it: through `talaria acp` the editor must still
 * get something to choose from — Talaria's own options — and its answer decides the effect.
 * (claude-code-acp's shell cell broke through the proxy: the ask reached the editor with no options.)
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { agentText, editorEnv, startEditor } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

vi.setConfig({ testTimeout: 240_000 });

const AGENT = fileURLToPath(new URL('../fakes/effects-agent.ts', import.meta.url));
const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: 'test-editor', version: '1' },
};

describe('talaria acp: effects Talaria gates', () => {
  it("asks the editor with Talaria's options and the effect's kind and path; the editor's allow lets the write happen", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-fx');
    const ed = startEditor(['--agent-cmd', `${nodeCommand(AGENT)}`], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const target = join(cwd, 'fx.txt');
    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: `write ${target} hello` }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(ed.permissions).toHaveLength(1);
    const asked = ed.permissions[0]!;
    expect(asked.sessionId).toBe(s.sessionId);
    expect((asked.options as any[]).map((o) => o.kind)).toEqual(expect.arrayContaining(['allow_once', 'reject_once']));
    expect((asked.options as any[]).every((o) => typeof o.optionId === 'string' && typeof o.name === 'string')).toBe(
      true,
    );
    // What the effect is, so the editor's own policy can judge it (an outer Talaria's rules do).
    expect(asked.toolCall).toMatchObject({ kind: 'edit', locations: [{ path: target }] });
    expect(agentText(ed.updates, s.sessionId)).toContain('"ok"');
    expect(existsSync(target) && readFileSync(target, 'utf8')).toBe('hello');
    await ed.close();
    expectValidWire(ed.frames);
  });

  // claude-code-acp asks for `echo hi`, then runs it through terminal/create with env CLAUDECODE=1:
  // the editor's answer to the agent's question covers that terminal (one question, not two).
  it.each(['allow_always', 'allow_once'])(
    '--approve ask: the agent asks for `echo hi`, the editor answers %s, its CLAUDECODE=1 terminal is not asked again',
    async (kind) => {
      const { env } = editorEnv();
      const cwd = tempDir('acp-fx');
      const ed = startEditor(['--approve', 'ask', '--agent-cmd', `${nodeCommand(AGENT)}`], { cwd, env });
      ed.onPermission = (p) => ({
        outcome: { outcome: 'selected', optionId: (p.options as any[]).find((o) => o.kind === kind).optionId },
      });
      await ed.request('initialize', INIT);
      const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
      const r = await ed.request<any>('session/prompt', {
        sessionId: s.sessionId,
        prompt: [{ type: 'text', text: 'claude-run CLAUDECODE=1 echo hi' }],
      });
      expect(r.stopReason).toBe('end_turn');
      expect(agentText(ed.updates, s.sessionId)).toContain('"output":"hi\\n"');
      expect(ed.permissions.map((p) => p.toolCall.title)).toEqual(['`echo hi`']);
      await ed.close();
    },
  );

  it('--approve all: inline interpreter code sent straight to terminal/create still asks the editor; a no leaves the folder', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-fx');
    mkdirSync(join(cwd, 'victim'));
    writeFileSync(join(cwd, 'victim', 'keep.txt'), 'keep');
    const ed = startEditor(['--approve', 'all', '--agent-cmd', `${nodeCommand(AGENT)}`], {
      cwd,
      env,
    });
    ed.onPermission = (p) => ({
      outcome: { outcome: 'selected', optionId: (p.options as any[]).find((o) => o.kind === 'reject_once').optionId },
    });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const prompt = `run python3 -c "import shutil; shutil.rmtree('victim')"`;
    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: prompt }],
    });
    expect(r.stopReason).toBe('end_turn');
    expect(ed.permissions).toHaveLength(1);
    expect(ed.permissions[0]!.toolCall).toMatchObject({ kind: 'execute' });
    expect(agentText(ed.updates, s.sessionId)).toContain('"error"');
    expect(existsSync(join(cwd, 'victim', 'keep.txt'))).toBe(true);
    await ed.close();
  });
});
