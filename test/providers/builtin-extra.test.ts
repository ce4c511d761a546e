/** The descriptors for the agents the offline matrix proved; their quirks follow the names they give (quirks/). */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claudeCode, gemini, kimi } from '../../src/providers/builtin.js';
import { copilot, cursor, kilo, pi, qwen } from '../../src/providers/builtin-extra.js';
import { applyQuirks, choiceBeforeInit, launchFacts } from '../../src/providers/quirks/index.js';
import { copilotClassifyTurn } from '../../src/providers/quirks/copilot.js';
import { cursorClassifyTurn } from '../../src/providers/quirks/cursor.js';
import { createRegistry } from '../../src/providers/registry.js';
import type { Provider } from '../../src/providers/types.js';
import { replay } from '../agents/quirks/replay.js';
import { cleanup, isolatedEnv, script, tempDir } from './helpers.js';
import { recordedTurn } from './quirks/turns.js';

/** What a built-in id gets before its agent has said anything (its expected name's set). */
const expected = (p: Provider) => applyQuirks(p, choiceBeforeInit(launchFacts(p, {})));

afterEach(cleanup);

describe('claude-code quirks (expected from its id, before initialize)', () => {
  it('reopens after a failed turn and offers `terminal-auth` in initialize', async () => {
    const q = expected(claudeCode);
    expect(q.choice).toMatchObject({ set: { id: 'claude-acp' }, basis: 'provider' });
    expect(q.hooks()).toEqual({ reopenAfterFailedTurn: true });
    expect(q.caps).toEqual({
      fs: { read: true, write: true },
      terminal: true,
      clientCapabilityOverrides: { _meta: { 'terminal-auth': true } },
    });
    // What the host spreads into the client reaches the wire (recorded claude-agent-acp, no credentials).
    const r = await replay('claude-agent-acp', 'no-credentials', {
      clientCapabilityOverrides: q.caps.clientCapabilityOverrides!,
      hooks: q.hooks(),
    });
    try {
      const init = r.sent().find((m) => m.method === 'initialize');
      expect((init?.params as { clientCapabilities?: { _meta?: unknown } }).clientCapabilities?._meta).toEqual({
        'terminal-auth': true,
      });
    } finally {
      await r.close();
    }
  });

  it('others get no `_meta` and no extra hooks', () => {
    for (const p of [gemini, kimi, qwen, kilo]) expect(expected(p).caps.clientCapabilityOverrides).toBeUndefined();
    expect(expected(kimi).hooks()).toEqual({});
    expect(expected(kilo).hooks()).toEqual({});
  });
});

describe('matrix-proved agents', () => {
  it('are registered after the first built-ins', () => {
    expect(
      createRegistry()
        .list()
        .map((p) => p.id),
    ).toEqual([
      'hermes',
      'claude-code',
      'codex',
      'gemini',
      'opencode',
      'kimi',
      'qwen',
      'copilot',
      'kilo',
      'pi',
      'cursor',
    ]);
  });

  it('are found on PATH with their ACP arguments, and missing ones say how to install', async () => {
    const bin = tempDir('bin-');
    for (const n of ['qwen', 'copilot', 'kilo', 'pi-acp', 'cursor-agent-acp']) script(join(bin, n), 'exit 0');
    const ctx = isolatedEnv({ searchPath: [bin] });
    expect(await qwen.locate(ctx)).toEqual({ command: join(bin, 'qwen'), args: ['--acp'], via: 'PATH' });
    expect(await copilot.locate(ctx)).toEqual({ command: join(bin, 'copilot'), args: ['--acp'], via: 'PATH' });
    expect(await kilo.locate(ctx)).toEqual({ command: join(bin, 'kilo'), args: ['acp'], via: 'PATH' });
    expect(await pi.locate(ctx)).toEqual({ command: join(bin, 'pi-acp'), args: [], via: 'PATH' });
    expect(await cursor.locate(ctx)).toEqual({ command: join(bin, 'cursor-agent-acp'), args: [], via: 'PATH' });
    const none = isolatedEnv({ env: { PATH: tempDir('e-') } });
    for (const p of [qwen, copilot, kilo, pi, cursor]) {
      expect(await p.locate(none)).toBeUndefined();
      const r = await p.readiness(none);
      expect(r).toMatchObject({ found: false, ready: false });
      expect(r.gaps).toEqual([
        { code: 'not_installed', message: `${p.label} was not found (not on PATH).`, fix: p.install },
      ]);
    }
  });

  it('readiness reads versions: by flag (qwen, copilot, kilo) or from the npm package (pi-acp, cursor: never started)', async () => {
    const bin = tempDir('bin-');
    for (const n of ['qwen', 'copilot', 'kilo']) script(join(bin, n), 'echo 1.2.3');
    const pkg = tempDir('pkg-');
    for (const [name, version] of [
      ['pi-acp', '0.0.24'],
      ['cursor-agent-acp', '0.7.1'],
    ] as const) {
      mkdirSync(join(pkg, name, 'dist'), { recursive: true });
      writeFileSync(join(pkg, name, 'package.json'), JSON.stringify({ name, version }));
      // Exits non-zero if started: readiness must not run it.
      script(join(pkg, name, 'dist', 'index.js'), 'exit 7');
      script(join(bin, name), `exec "${join(pkg, name, 'dist', 'index.js')}" "$@"`);
    }
    const ctx = isolatedEnv({ searchPath: [bin] });
    for (const p of [qwen, copilot, kilo])
      expect(await p.readiness(ctx)).toMatchObject({ found: true, ready: true, version: '1.2.3', warnings: [] });
    expect(await pi.readiness(ctx)).toMatchObject({ found: true, ready: true, warnings: [] });
    expect(await cursor.readiness(ctx)).toMatchObject({ found: true, ready: true, warnings: [] });
  });

  it('qwen switches every session to its asking mode `default`', () => {
    for (const m of ['ask', 'accept-edits', 'auto'] as const) expect(expected(qwen).modeFor?.(m)).toBe('default');
    expect(expected(kilo).modeFor).toBeUndefined();
  });

  it('copilot, cursor and pi get their classifyTurn hooks', () => {
    expect(expected(copilot).hooks().classifyTurn).toBe(copilotClassifyTurn);
    expect(expected(copilot).hooks().classifyTurn?.(recordedTurn('copilot', 'error-400'))?.code).toBe('agent_error');
    expect(expected(cursor).hooks().classifyTurn).toBe(cursorClassifyTurn);
    expect(expected(cursor).hooks().classifyTurn?.(recordedTurn('cursor', 'text'))?.code).toBe('auth_required');
    // pi's hook reads the log in PI_CODING_AGENT_DIR from the env the host passes.
    const dir = tempDir('pi-agent-');
    mkdirSync(join(dir, 'sessions', 'w'), { recursive: true });
    writeFileSync(
      join(dir, 'sessions', 'w', 's.jsonl'),
      JSON.stringify({
        type: 'message',
        message: { role: 'assistant', stopReason: 'error', errorMessage: 'rate limited' },
      }) + '\n',
    );
    const hooks = expected(pi).hooks({ env: isolatedEnv({ env: { PI_CODING_AGENT_DIR: dir } }) });
    expect(hooks.classifyTurn?.(recordedTurn('pi', 'error-400'))?.message).toContain('rate limited');
    expect(expected(pi).hooks().classifyTurn?.(recordedTurn('pi', 'error-400'))?.message).toContain('no answer');
  });
});
