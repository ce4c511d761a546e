/**
 * Which quirk set an agent gets: from the name and version it gives in `initialize` (recorded
 * from the real agents), else from what its launch says, never from the provider it was started by.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseWireLog } from '../../../src/protocol/wire-log.js';
import { customProvider } from '../../../src/providers/custom.js';
import { gemini } from '../../../src/providers/builtin.js';
import { hermesProvider } from '../../../src/providers/hermes/provider.js';
import {
  applyQuirks,
  choiceAfterInit,
  hooksForAgent,
  choiceBeforeInit,
  choiceForAgent,
  choiceForCommand,
  describeRange,
  GENERIC_QUIRKS,
  launchFacts,
  QUIRK_SETS,
  sameCaps,
  setForAgent,
} from '../../../src/providers/quirks/index.js';

const FIXTURES = fileURLToPath(new URL('../../fixtures/agents/', import.meta.url));

/** agentInfo as each real agent sent it (the first recording of each). */
function recordedAgentInfo(agent: string): { name: string; version?: string } {
  const file = readdirSync(`${FIXTURES}${agent}`)[0]!;
  const lines = parseWireLog(readFileSync(`${FIXTURES}${agent}/${file}`, 'utf8'));
  const init = lines.find(
    (l) => l.dir === 'agent->client' && (l.msg.result as { agentInfo?: unknown } | undefined)?.agentInfo,
  );
  return (init!.msg.result as { agentInfo: { name: string; version?: string } }).agentInfo;
}

describe('the set follows the name the agent gives in initialize', () => {
  const cases: [string, string][] = [
    ['claude-agent-acp', 'claude-acp'],
    ['claude-code-acp', 'claude-acp'],
    ['gemini-cli', 'gemini-cli'],
    ['qwen-code', 'qwen-code'],
    ['copilot', 'copilot'],
    ['pi', 'pi-acp'],
    ['cursor', 'cursor-acp'],
    ['codex-acp', 'generic'],
    ['opencode', 'generic'],
    ['kilo', 'generic'],
  ];
  for (const [agent, set] of cases) {
    it(`${agent} (recorded agentInfo) → ${set}`, () => {
      const info = recordedAgentInfo(agent);
      const c = choiceForAgent(info);
      expect(c.set.id).toBe(set);
      expect(c).toMatchObject({ basis: 'agent', agent: { name: info.name, version: info.version } });
      expect(c.why).toContain(`"${info.name}" ${info.version}`);
      if (set === 'generic') expect(c.why).toMatch(/no known quirks$/);
    });
  }

  it("claude-agent-acp's successor (@agentclientprotocol, 0.101.0) → claude-acp, switched to its asking mode", () => {
    const c = choiceForAgent({ name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' });
    expect(c.set.id).toBe('claude-acp');
    // It starts sessions in `auto` (edits and commands without asking): every Talaria mode asks through `default`.
    for (const m of ['ask', 'accept-edits', 'auto'] as const) expect(c.set.modeFor?.(m)).toBe('default');
    expect(applyQuirks(undefined, c).caps.clientCapabilityOverrides).toEqual({ _meta: { 'terminal-auth': true } });
  });

  it('Hermes (recorded 0.18.2; 0.20.x) → the ≤0.20 set; 0.21 and later → the 0.21 set', () => {
    const recorded = parseWireLog(
      readFileSync(fileURLToPath(new URL('../../fixtures/hermes-0.18.2/main.ndjson', import.meta.url)), 'utf8'),
    );
    const info = (recorded[1]!.msg.result as { agentInfo: { name: string; version: string } }).agentInfo;
    expect(info).toEqual({ name: 'hermes-agent', version: '0.18.2' });
    const at = (version?: string) => setForAgent('hermes-agent', version)?.set.id;
    expect([at('0.18.2'), at('0.19.0'), at('0.20.9'), at('v0.20.0-rc1')]).toEqual([
      'hermes-0.18',
      'hermes-0.18',
      'hermes-0.18',
      'hermes-0.18',
    ]);
    expect([at('0.21.0'), at('0.21.3'), at('1.0.0')]).toEqual(['hermes-0.21', 'hermes-0.21', 'hermes-0.21']);
    // Older than every range: the oldest set. Unknown: the oldest too (every workaround on).
    expect([at('0.12.0'), at(undefined), at('nightly')]).toEqual(['hermes-0.18', 'hermes-0.18', 'hermes-0.18']);
    expect(choiceForAgent(info).why).toBe('the agent named itself "hermes-agent" 0.18.2 (versions below 0.21.0)');
    expect(choiceForAgent({ name: 'hermes-agent' }).why).toBe(
      'the agent named itself "hermes-agent" (version unknown: every workaround of this agent)',
    );
  });

  it('0.21 keeps MCP servers across set_model: no reload; both count usage cumulatively', () => {
    const old = applyQuirks(undefined, choiceForAgent({ name: 'hermes-agent', version: '0.18.2' }));
    const now = applyQuirks(undefined, choiceForAgent({ name: 'hermes-agent', version: '0.21.0' }));
    expect(old.host.reloadAfterSetModel).toBe(true);
    expect(now.host.reloadAfterSetModel).toBe(false);
    for (const q of [old, now])
      expect(q).toMatchObject({ usage: 'cumulative', host: { configBetweenTurns: true, reseedOnOverflow: true } });
  });

  it('names match whole and case-insensitively; an unknown agent gets the generic set', () => {
    expect(choiceForAgent({ name: 'COPILOT' }).set.id).toBe('copilot');
    expect(choiceForAgent({ name: 'hermes-agent-fork' }).set).toBe(GENERIC_QUIRKS);
    expect(choiceForAgent({ name: 'my-agent', version: '1.0' }).why).toBe(
      'the agent named itself "my-agent" 1.0: no known quirks',
    );
    const generic = applyQuirks(undefined, choiceForAgent({ name: 'my-agent' }));
    expect(generic).toMatchObject({
      usage: 'per-turn',
      sessionsSurviveRestart: true,
      host: {},
      caps: { fs: { read: true, write: true }, terminal: true },
    });
    expect(generic.hooks()).toEqual({});
    expect(generic.modeFor).toBeUndefined();
  });

  it('ranges read as sentences; every set id is unique', () => {
    expect(describeRange({ below: '0.21.0' })).toBe('versions below 0.21.0');
    expect(describeRange({ min: '0.21.0' })).toBe('versions 0.21.0 and later');
    expect(describeRange({ min: '1.0.0', below: '2.0.0' })).toBe('versions 1.0.0 to below 2.0.0');
    expect(describeRange(undefined)).toBe('any version');
    expect(new Set(QUIRK_SETS.map((s) => s.id)).size).toBe(QUIRK_SETS.length);
  });
});

describe('before initialize: what the launch says (only the client capabilities depend on it)', () => {
  const hint = (line: string) => {
    const [command, ...args] = line.split(' ');
    return choiceForCommand(command!, args)?.set.id;
  };

  it('a command line names an agent by its executable or its package path', () => {
    expect(hint('gemini --acp')).toBe('gemini-cli');
    expect(hint('/home/me/.npm/bin/gemini --experimental-acp')).toBe('gemini-cli');
    expect(hint('/usr/bin/node /x/node_modules/@google/gemini-cli/dist/index.js --acp')).toBe('gemini-cli');
    expect(hint('/usr/bin/env GEMINI_API_KEY=k /x/node_modules/.bin/qwen --acp')).toBe('qwen-code');
    expect(hint('node /x/node_modules/@zed-industries/claude-agent-acp/dist/index.js')).toBe('claude-acp');
    expect(hint('claude-code-acp')).toBe('claude-acp');
    expect(hint('/opt/hermes/venv/bin/hermes -p work acp')).toBe('hermes-0.18');
    expect(hint('copilot --acp')).toBe('copilot');
    expect(hint('pi-acp')).toBe('pi-acp');
    expect(hint('/x/node_modules/.bin/cursor-agent-acp')).toBe('cursor-acp');
    // Nothing to go on: a wrapper script, another agent, a word that only contains a name.
    for (const line of ['./start-agent.sh', 'opencode acp', 'geminiish --acp', 'node agent.js --model gemini-pro'])
      expect(hint(line)).toBeUndefined();
  });

  it('a built-in id says which agent it expects (version from its --version when known)', () => {
    const c = choiceBeforeInit(launchFacts(hermesProvider, { version: '0.21.1', command: '/x/my-wrapper', args: [] }));
    expect(c).toMatchObject({ set: { id: 'hermes-0.21' }, basis: 'provider' });
    expect(c.why).toBe(
      'agent "hermes" is expected to be "hermes-agent" 0.21.1 (versions 0.21.0 and later); confirmed at initialize',
    );
    expect(choiceBeforeInit(launchFacts(gemini, {})).set.id).toBe('gemini-cli');
  });

  it('a user-defined or imported agent: its command line, else nothing (decided at initialize)', () => {
    const named = customProvider({ name: 'g', command: '/x/gemini', args: ['--acp'] }, { source: 'zed' });
    expect(choiceBeforeInit(launchFacts(named, { command: '/x/gemini', args: ['--acp'] }))).toMatchObject({
      set: { id: 'gemini-cli' },
      basis: 'command',
    });
    const wrapped = customProvider({ name: 'w', command: '/x/run.sh' });
    expect(choiceBeforeInit(launchFacts(wrapped, { command: '/x/run.sh', args: [] }))).toMatchObject({
      set: GENERIC_QUIRKS,
      basis: 'none',
    });
  });

  it('an earlier process of the same launch beats guessing', () => {
    const learned = choiceForAgent({ name: 'gemini-cli', version: '0.61.0' });
    const c = choiceBeforeInit({ command: '/x/run.sh', args: [], learned });
    expect(c).toMatchObject({ set: { id: 'gemini-cli' }, basis: 'learned' });
    expect(c.why).toBe('an earlier process of this agent named itself "gemini-cli" 0.61.0 (any version)');
  });
});

describe('after initialize: the agent decides', () => {
  it('its name wins over the id it was started by; without a name the guess stays, said so', () => {
    const before = choiceBeforeInit(launchFacts(gemini, {}));
    expect(choiceAfterInit(before, { name: 'qwen-code', version: '0.24.4' })).toMatchObject({
      set: { id: 'qwen-code' },
      basis: 'agent',
    });
    const silent = choiceAfterInit(before, undefined);
    expect(silent).toMatchObject({ set: { id: 'gemini-cli' }, basis: 'provider' });
    expect(silent.why).toBe(
      'agent "gemini" is expected to be "gemini-cli" (any version) (the agent did not name itself in initialize)',
    );
    expect(choiceAfterInit(choiceBeforeInit({}), { name: '' })).toMatchObject({
      set: GENERIC_QUIRKS,
      basis: 'none',
      why: 'the agent did not name itself in initialize',
    });
  });
});

describe('forks and renames keep their fixes (issue 35 item 13)', () => {
  it('the base name under any npm scope names the agent: @sudocode-ai/claude-code-acp is the Claude adapter', () => {
    const before = choiceBeforeInit({});
    for (const name of [
      '@sudocode-ai/claude-code-acp',
      '@zed-industries/claude-agent-acp',
      '@agentclientprotocol/claude-agent-acp',
      'claude-code-acp',
      '@acme/qwen-code',
    ]) {
      const c = choiceAfterInit(before, { name, version: '0.13.10' });
      expect(c.set.id, name).toBe(name.endsWith('qwen-code') ? 'qwen-code' : 'claude-acp');
      expect(c.basis).toBe('agent');
    }
    // Its prompt-stream fix (reopen after a failed or cancelled turn) comes with it.
    expect(
      applyQuirks(undefined, choiceAfterInit(before, { name: '@sudocode-ai/claude-code-acp' })).hooks({} as never),
    ).toMatchObject({ reopenAfterFailedTurn: true });
    // A name that only contains the words is not the agent.
    expect(choiceAfterInit(before, { name: 'not-claude-code-acp-wrapper' }).set).toBe(GENERIC_QUIRKS);
  });

  it("a renamed fork is known by the adapter's own marks in initialize: the title Claude Code or the claude-login method", () => {
    const before = choiceBeforeInit({});
    expect(choiceAfterInit(before, { name: 'my-agent', title: 'Claude Code' }).set.id).toBe('claude-acp');
    expect(choiceAfterInit(before, { name: 'my-agent' }, [{ id: 'claude-login' }]).set.id).toBe('claude-acp');
    expect(choiceAfterInit(before, { name: 'my-agent', title: 'Other' }, [{ id: 'login' }]).set).toBe(GENERIC_QUIRKS);
  });
});

describe('hooks for an agent known only by what it said (stored sessions, recorded logs)', () => {
  it('come from the catalog: Hermes by its name, a fork of Claude by its base name; nothing for an unknown agent', () => {
    expect(hooksForAgent({ name: 'hermes-agent', version: '0.18.2' })).toMatchObject({
      loadEmptyMeansNotFound: expect.anything(),
    });
    expect(hooksForAgent({ name: '@sudocode-ai/claude-code-acp' })).toMatchObject({ reopenAfterFailedTurn: true });
    expect(hooksForAgent({ name: 'some-agent' })).toBeUndefined();
    expect(hooksForAgent(undefined)).toBeUndefined();
  });
});

describe('applied to a provider: the user’s own settings win', () => {
  it('client capabilities: the set can only switch off (gemini: no fs read), the user too; claude adds _meta', () => {
    const g = applyQuirks(undefined, choiceForAgent({ name: 'gemini-cli' }));
    expect(g.caps).toEqual({ fs: { read: false, write: true }, terminal: true });
    const noFs = customProvider({ name: 'c', command: 'claude-agent-acp', fs: false, terminal: false });
    const c = applyQuirks(noFs, choiceForAgent({ name: '@zed-industries/claude-agent-acp' }));
    expect(c.caps).toEqual({
      fs: { read: false, write: false },
      terminal: false,
      clientCapabilityOverrides: { _meta: { 'terminal-auth': true } },
    });
    expect(sameCaps(g.caps, c.caps)).toBe(false);
    expect(sameCaps(g.caps, { fs: { read: false, write: true }, terminal: true })).toBe(true);
    expect(sameCaps(c.caps, { ...c.caps, clientCapabilityOverrides: { _meta: {} } })).toBe(false);
  });

  it('usage and restart: config.json overrides the set', () => {
    const user = customProvider({ name: 'h', command: 'hermes', usage: 'per-turn', sessionsSurviveRestart: false });
    const q = applyQuirks(user, choiceForAgent({ name: 'hermes-agent', version: '0.18.2' }));
    expect(q).toMatchObject({ usage: 'per-turn', sessionsSurviveRestart: false });
    expect(
      applyQuirks(customProvider({ name: 'h', command: 'hermes' }), choiceForAgent({ name: 'hermes-agent' })),
    ).toMatchObject({
      usage: 'cumulative',
      sessionsSurviveRestart: true,
    });
  });
});
