/**
 * An effect Talaria gates for the agent (fs/write_text_file, terminal/create sent without asking
 * first) has no agent permission request behind it: through `talaria acp` the editor must still
 * get something to choose from — Talaria's own options — and its answer decides the effect.
 * (claude-code-acp's shell cell broke through the proxy: the ask reached the editor with no options.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { TSX, tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { agentText, editorEnv, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 240_000 });

const AGENT = fileURLToPath(new URL('../fakes/effects-agent.ts', import.meta.url));
const INIT = { protocolVersion: 1, clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true }, clientInfo: { name: 'test-editor', version: '1' } };

describe('talaria acp: effects Talaria gates', () => {
  it("asks the editor with Talaria's options and the effect's kind and path; the editor's allow lets the write happen", async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-fx');
    const ed = startEditor(['--agent-cmd', `'${process.execPath}' --import '${TSX}' '${AGENT}'`], { cwd, env });
    await ed.request('initialize', INIT);
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const target = join(cwd, 'fx.txt');
    const r = await ed.request<any>('session/prompt', { sessionId: s.sessionId, prompt: [{ type: 'text', text: `write ${target} hello` }] });
    expect(r.stopReason).toBe('end_turn');
    expect(ed.permissions).toHaveLength(1);
    const asked = ed.permissions[0]!;
    expect(asked.sessionId).toBe(s.sessionId);
    expect((asked.options as any[]).map((o) => o.kind)).toEqual(expect.arrayContaining(['allow_once', 'reject_once']));
    expect((asked.options as any[]).every((o) => typeof o.optionId === 'string' && typeof o.name === 'string')).toBe(true);
    // What the effect is, so the editor's own policy can judge it (an outer Talaria's rules do).
    expect(asked.toolCall).toMatchObject({ kind: 'edit', locations: [{ path: target }] });
    expect(agentText(ed.updates, s.sessionId)).toContain('"ok"');
    expect(existsSync(target) && readFileSync(target, 'utf8')).toBe('hello');
    await ed.close();
    expectValidWire(ed.frames);
  });
});
