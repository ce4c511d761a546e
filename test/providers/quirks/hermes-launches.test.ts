/**
 * The same Hermes (the emulator, test/fakes/hermes) started every way a user can — built-in id,
 * `--agent-cmd`, a config.json agent, a Zed import — gets the same fixes, because they follow
 * what it says in initialize (`hermes-agent` 0.18.2). Issue 17's table, Hermes row: usage
 * cumulative, MCP tools gone after a model switch, a phantom `edit-approval-1` tool card, a 401
 * that looks like an answer. And the version range: 0.21 keeps its MCP servers (no reload).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createHarness } from '../../../src/harness/harness.js';
import type { HostEvent } from '../../../src/host/events.js';
import { currentEnv } from '../../../src/providers/locate.js';
import type { ToolCallEntry } from '../../../src/thread/types.js';
import { CONFIG, cleanup, tempDir } from '../helpers.js';

vi.setConfig({ testTimeout: 90_000 });
afterEach(cleanup);

const HERMES = fileURLToPath(new URL('../../fakes/hermes/bin/hermes', import.meta.url));
const FILES = { name: 'files', command: '/bin/true', args: [], env: [] };

type Launch = 'built-in id' | '--agent-cmd' | 'config.json agent' | 'Zed import';

/**
 * A machine as a user has it: a configured Hermes home, Talaria's config.json (the workspace's
 * env says where that home is, and holds the emulator switches), Zed's settings. HERMES_BIN
 * points the built-in at the emulator; nothing else of ours reaches an agent started by command.
 */
function machine(emu: Record<string, string> = {}) {
  const home = tempDir('home-');
  mkdirSync(join(home, '.hermes'), { recursive: true });
  writeFileSync(join(home, '.hermes', 'config.yaml'), CONFIG);
  const workspace = tempDir('ws-');
  const talaria = join(home, '.talaria');
  mkdirSync(talaria, { recursive: true });
  writeFileSync(
    join(talaria, 'config.json'),
    JSON.stringify({
      agents: { 'my-hermes': { command: HERMES, args: ['acp'] } },
      workspaces: { [workspace]: { env: { HERMES_HOME: join(home, '.hermes'), ...emu } } },
      imports: { zed: true, jetbrains: false },
    }),
  );
  mkdirSync(join(home, '.config', 'zed'), { recursive: true });
  writeFileSync(
    join(home, '.config', 'zed', 'settings.json'),
    JSON.stringify({ agent_servers: { 'Hermes Zed': { type: 'custom', command: HERMES, args: ['acp'] } } }),
  );
  const env = { PATH: process.env.PATH, HOME: home, HERMES_BIN: HERMES };
  const h = createHarness({ home: talaria, env: currentEnv({ env, homeDir: home }), host: { terminateGraceMs: 500 } });
  const events: HostEvent[] = [];
  h.host.subscribe((e) => events.push(e));
  return { h, workspace, events };
}

function providerFor(h: ReturnType<typeof machine>['h'], how: Launch): string {
  if (how === 'built-in id') return 'hermes';
  if (how === '--agent-cmd') return h.commandAgent(HERMES, ['acp']).id;
  return how === 'config.json agent' ? 'my-hermes' : 'zed:hermes-zed';
}

const calls = (s: { thread: { entries: unknown[] } }) =>
  s.thread.entries.filter((e) => (e as { kind: string }).kind === 'tool_call') as ToolCallEntry[];

describe.each<Launch>(['built-in id', '--agent-cmd', 'config.json agent', 'Zed import'])(
  'Hermes started by %s',
  (how) => {
    it('gets the Hermes 0.18 quirk set: per-turn usage, linked approvals, 401 as an auth error, MCP back after set_model', async () => {
      const m = machine({ HERMES_EMU_CATALOG: 'big' });
      try {
        const provider = providerFor(m.h, how);
        const hs = await m.h.workspaces
          .open(m.workspace)
          .newSession({ provider, mcpServers: [FILES], permissionMode: 'ask' });
        const s = hs.session;
        const spawned = m.events.find((e) => e.type === 'agent.spawned') as Extract<
          HostEvent,
          { type: 'agent.spawned' }
        >;
        expect(spawned.quirks).toMatchObject({
          set: 'hermes-0.18',
          basis: 'agent',
          why: 'the agent named itself "hermes-agent" 0.18.2 (versions below 0.21.0)',
        });
        expect(spawned.quirks?.restartedFrom).toBeUndefined();

        // Usage: Hermes reports it cumulatively; each turn shows its own.
        const a = await s.prompt('hello').result;
        const b = await s.prompt('hello again').result;
        expect(a.usage).toMatchObject({ totalTokens: 1234 });
        expect(b.usage).toMatchObject({ totalTokens: 1234 });

        // The edit approval (synthetic id edit-approval-1) is shown on the write it concerns, not as a card of its own.
        const asked = new Promise<{ requestKey: string; toolCallId: string }>((resolve) => {
          const off = s.subscribe((e) => e.type === 'permission.asked' && (off(), resolve(e)));
        });
        const write = s.prompt('WRITE out.txt');
        const ask = await asked;
        expect(ask.toolCallId).toBe('edit-approval-1');
        s.answerPermission(ask.requestKey, { choice: 'allow_once' });
        expect((await write.result).stopReason).toBe('end_turn');
        expect(
          calls(s)
            .map((c) => c.toolCallId)
            .filter((id) => !id.startsWith('tc-')),
        ).toEqual([]);
        expect(calls(s).find((c) => c.title === `write: ${join(m.workspace, 'out.txt')}`)?.permission).toMatchObject({
          status: 'allowed',
        });

        // A rejected key is an auth error, not an answer.
        const auth = await s.prompt('AUTHFAIL').result;
        expect(auth).toMatchObject({ stopReason: 'error', error: { code: 'auth_error' } });

        // After a model switch its MCP tools are still there (the session is loaded again with them).
        await s.setModel('nous:anthropic/claude-opus-5');
        await s.prompt('MCP').result;
        expect(s.thread.entries.filter((e) => e.kind === 'assistant_message').at(-1)).toMatchObject({
          text: expect.stringMatching(/MCP tool mcp__files__echo answered/),
        });
      } finally {
        await m.h.close();
      }
    });
  },
);

describe('the version range decides, whatever the launch', () => {
  it('Hermes 0.21 by --agent-cmd: the 0.21 set, so no reload after set_model (it keeps its MCP servers)', async () => {
    const log = join(tempDir('log-'), 'emu.log');
    const m = machine({ HERMES_EMU_VERSION: '0.21', HERMES_EMU_CATALOG: 'big', HERMES_EMU_LOG: log });
    try {
      const hs = await m.h.workspaces
        .open(m.workspace)
        .newSession({ provider: providerFor(m.h, '--agent-cmd'), mcpServers: [FILES] });
      const spawned = m.events.find((e) => e.type === 'agent.spawned') as Extract<HostEvent, { type: 'agent.spawned' }>;
      expect(spawned.quirks).toMatchObject({
        set: 'hermes-0.21',
        why: 'the agent named itself "hermes-agent" 0.21.0 (versions 0.21.0 and later)',
      });
      // Still cumulative usage in 0.21.
      await hs.session.prompt('hello').result;
      expect((await hs.session.prompt('hello again').result).usage).toMatchObject({ totalTokens: 1234 });
      await hs.session.setModel('nous:anthropic/claude-opus-5');
      await hs.session.prompt('MCP').result;
      expect(hs.session.thread.entries.filter((e) => e.kind === 'assistant_message').at(-1)).toMatchObject({
        text: expect.stringMatching(/MCP tool mcp__files__echo answered/),
      });
      const methods = readFileSync(log, 'utf8')
        .trim()
        .split('\n')
        .map((l) => (JSON.parse(l) as { msg: { method?: string } }).msg.method);
      expect(methods).toContain('session/set_model');
      expect(methods).not.toContain('session/load');
    } finally {
      await m.h.close();
    }
  });
});
