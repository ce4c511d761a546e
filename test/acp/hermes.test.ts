/**
 * `talaria acp --agent-cmd "<Hermes emulator> acp"`: what the editor gets is spec-current although
 * Hermes is not — its dangling read/write tool calls are settled before the prompt answer,
 * configOptions are synthesized from its legacy models/modes and set_config_option maps back to
 * set_model, chunks carry messageIds. Every frame passes the wire checker.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { tempDir } from '../cli/helpers.js';
import { expectValidWire } from '../fakes/wire.js';
import { HERMES, editorEnv, startEditor } from './helpers.js';

vi.setConfig({ testTimeout: 120_000 });

const INIT = {
  protocolVersion: 1,
  clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
  clientInfo: { name: 'test-editor', version: '1' },
};

describe('talaria acp in front of the Hermes emulator', () => {
  it('settles dangling tool calls, synthesizes configOptions, maps set_config_option to set_model', async () => {
    const { env } = editorEnv();
    const cwd = tempDir('acp-hermes');
    writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
    const ed = startEditor(
      ['--agent-cmd', `env HERMES_HOME=${env.HERMES_HOME} HERMES_EMU_CATALOG=big ${HERMES} acp`, '--approve', 'all'],
      { cwd, env },
    );
    const init = await ed.request<any>('initialize', INIT);
    expect(init.agentInfo.title).toContain('Talaria');
    expect(init._meta.talaria.agentInfo).toMatchObject({ name: 'hermes-agent' });
    const s = await ed.request<any>('session/new', { cwd, mcpServers: [] });
    const model = (s.configOptions as any[]).find((o) => o.category === 'model');
    expect(model).toMatchObject({ type: 'select', currentValue: expect.any(String) });
    expect((s.configOptions as any[]).some((o) => o.category === 'mode')).toBe(true);

    const r = await ed.request<any>('session/prompt', {
      sessionId: s.sessionId,
      prompt: [{ type: 'text', text: 'TOOLS' }],
    });
    expect(r.stopReason).toBe('end_turn');
    const mine = ed.updates.filter((u) => u.sessionId === s.sessionId).map((u) => u.update);
    const started = mine.filter((u) => u.sessionUpdate === 'tool_call').map((u) => u.toolCallId as string);
    expect(started.length).toBeGreaterThanOrEqual(3);
    const last = new Map<string, string>();
    for (const u of mine)
      if ((u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update') && u.status)
        last.set(u.toolCallId, u.status);
    // Every call the editor saw ends settled (Hermes never completes read_file/write_file itself).
    for (const id of started) expect([id, last.get(id)]).toEqual([id, 'completed']);
    expect(mine.some((u) => u._meta?.talaria?.settledBy === 'turn_end')).toBe(true);
    expect(mine.filter((u) => /_chunk$/.test(u.sessionUpdate)).every((u) => typeof u.messageId === 'string')).toBe(
      true,
    );

    const other = (model.options as any[])
      .map((o) => o.value ?? o.options?.[0]?.value)
      .find((v) => v && v !== model.currentValue);
    expect(other).toBeDefined();
    const set = await ed.request<any>('session/set_config_option', {
      sessionId: s.sessionId,
      configId: model.id,
      value: other,
    });
    expect((set.configOptions as any[]).find((o) => o.category === 'model').currentValue).toBe(other);
    // The legacy method reached Hermes (Talaria's own wire log shows it through the frames it forwarded).
    expect(await ed.close()).toBe(0);
    expect(ed.noise).toEqual([]);
    expectValidWire(ed.frames);
  });
});
