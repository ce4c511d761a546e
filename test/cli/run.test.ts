import { describe, it, expect, vi } from 'vitest';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEvent } from '../../src/session/events.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { BIN, ROOT, demoEnv, fakeCmd, ndjsonLines, runCli, startCli, tempDir } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

// End-to-end tests spawn two Node processes each (CLI + agent); the machine may be busy.
vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 60_000) });

/** `talaria run` end to end: real CLI process, real demo agent or fault executables. */

function workspace() {
  const cwd = tempDir('run');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  return { cwd, env: demoEnv(tempDir('demo-home')) };
}

function expectValidStream(lines: Record<string, unknown>[]) {
  expect(lines[0]?.type).toBe('run.started');
  expect(lines[lines.length - 1]?.type).toBe('run.ended');
  lines.forEach((l, i) => {
    expect(l.v).toBe(1);
    expect(l.seq).toBe(i + 1);
    expect(typeof l.at).toBe('number');
    if (l.type !== 'run.started' && l.type !== 'run.ended') expect(checkEvent(l as { type: string })).toBeNull();
  });
}

describe.concurrent('talaria run against the demo agent', () => {
  it('streams the reply as text, exit 0, banner on stderr', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', 'hello', 'there'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toContain('You said: "hello there"');
    expect(r.stdout.endsWith('\n')).toBe(true);
    expect(r.stderr).toContain('Using the Talaria demo agent (offline, scripted) — install Hermes or pass --agent-cmd');
  });

  it('--json prints the final result; a prompt from stdin with -', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', '--json', '-'], { cwd, env, input: 'read notes.txt\n' });
    expect(r.code).toBe(EXIT.OK);
    const j = JSON.parse(r.stdout) as Record<string, any>;
    expect(j).toMatchObject({ v: 1, stopReason: 'end_turn', exitCode: 0 });
    expect(typeof j.sessionId).toBe('string');
    expect(j.text).toContain('I read notes.txt');
    expect(j.toolCalls).toEqual([
      expect.objectContaining({
        title: 'Read notes.txt',
        kind: 'read',
        status: 'completed',
        locations: [join(cwd, 'notes.txt')],
      }),
    ]);
    expect(j.usage).toEqual(expect.objectContaining({ totalTokens: expect.any(Number) }));
  });

  it('--ndjson: every line is a valid, versioned event between run.started and run.ended', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', '--ndjson', '--approve', 'all', 'tour'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    const lines = ndjsonLines(r.stdout);
    expectValidStream(lines);
    const types = new Set(lines.map((l) => l.type));
    for (const t of [
      'catalog.updated',
      'turn.started',
      'entry.added',
      'entry.updated',
      'plan.updated',
      'permission.decided',
      'turn.ended',
    ])
      expect(types).toContain(t);
    const sid = lines[0]!.sessionId;
    expect(lines.every((l) => l.sessionId === sid)).toBe(true);
    expect(lines.at(-1)).toMatchObject({ stopReason: 'end_turn', exitCode: 0 });
    // Nothing after the turn (closing the session is not part of the run).
    expect(lines.at(-2)?.type).toBe('turn.ended');
  });

  it('--approve none: the edit is rejected and the file is left untouched', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', '--json', '--approve', 'none', 'edit notes.txt'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    const j = JSON.parse(r.stdout) as { toolCalls: { status: string; permission: string }[] };
    expect(j.toolCalls[0]).toMatchObject({ status: 'failed', permission: 'rejected' });
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\n');
    // Decided by the policy, not by failing closed for lack of a terminal.
    expect(r.stderr).not.toContain('no terminal to ask on');
  });

  it('--approve all: the edit is allowed and written', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', '--json', '--approve', 'all', 'edit notes.txt'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    const j = JSON.parse(r.stdout) as { toolCalls: { status: string; permission: string }[] };
    expect(j.toolCalls[0]).toMatchObject({ status: 'completed', permission: 'allowed' });
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\nEdited by the Talaria demo agent.\n');
  });

  it('--approve ask without a terminal fails closed (rejects) and says so', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', 'edit notes.txt'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stderr).toContain('rejected (no terminal to ask on');
    expect(r.stdout).toContain('notes.txt was not changed');
    expect(readFileSync(join(cwd, 'notes.txt'), 'utf8')).toBe('hello notes\n');
  });

  it('--approve edits allows an edit inside the workspace', async () => {
    const { cwd, env } = workspace();
    const r = await runCli(['run', '--json', '--approve', 'edits', 'edit notes.txt'], { cwd, env });
    expect((JSON.parse(r.stdout) as { toolCalls: { permission: string }[] }).toolCalls[0]?.permission).toBe('allowed');
  });

  it('refusal exits 3; an agent error exits 5 with the error in --json', async () => {
    const { cwd, env } = workspace();
    const [refused, failed] = await Promise.all([
      runCli(['run', '--json', 'refuse'], { cwd, env }),
      runCli(['run', '--json', 'fail'], { cwd, env }),
    ]);
    expect(refused.code).toBe(EXIT.REFUSAL);
    expect(JSON.parse(refused.stdout)).toMatchObject({ stopReason: 'refusal', exitCode: 3 });
    expect(failed.code).toBe(EXIT.AGENT_ERROR);
    expect(JSON.parse(failed.stdout)).toMatchObject({
      stopReason: 'error',
      exitCode: 5,
      error: { code: 'agent_error' },
    });
    expect(failed.stderr).toContain('Demo failure');
  });

  it('--session continues a session: its history is loaded, then the turn runs', async () => {
    const { cwd, env } = workspace();
    const first = JSON.parse((await runCli(['run', '--json', 'first prompt'], { cwd, env })).stdout) as {
      sessionId: string;
    };
    const r = await runCli(['run', '--ndjson', '--session', first.sessionId, 'second prompt'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    const lines = ndjsonLines(r.stdout);
    expectValidStream(lines);
    expect(lines[0]).toMatchObject({ sessionId: first.sessionId, loaded: true, origin: 'loaded', cwd });
    const users = lines.filter(
      (l) => l.type === 'entry.added' && (l.entry as { kind: string }).kind === 'user_message',
    );
    expect(users.map((l) => (l.entry as { text: string }).text)).toEqual(['first prompt', 'second prompt']);
  });

  it('--session in human mode prints the new turn only, not the replayed history', async () => {
    const { cwd, env } = workspace();
    const first = await runCli(['run', 'read notes.txt'], { cwd, env });
    expect(first.stdout).toContain('I read notes.txt');
    const id = (
      JSON.parse((await runCli(['sessions', 'list', '--store-only', '--json'], { cwd, env })).stdout) as {
        sessions: { id: string }[];
      }
    ).sessions[0]!.id;
    const r = await runCli(['run', '--session', id, 'hello again'], { cwd, env });
    expect(r.code).toBe(EXIT.OK);
    expect(r.stdout).toContain('You said: "hello again"');
    expect(r.stdout).not.toContain('I read notes.txt');
    expect(r.stderr).not.toContain('Read notes.txt'); // the old turn's tool card
  });

  it("one id: --json gives Talaria's id and the agent's; --session takes a prefix of either", async () => {
    const { cwd, env } = workspace();
    const first = JSON.parse((await runCli(['run', '--json', 'first prompt'], { cwd, env })).stdout) as {
      sessionId: string;
      agentSessionId: string;
    };
    expect(first.agentSessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(first.sessionId).not.toBe(first.agentSessionId);
    // One after the other: a session is held by one process at a time (a second writer is refused).
    const byTalaria = await runCli(['run', '--json', '--session', first.sessionId.slice(0, 8), 'by talaria prefix'], {
      cwd,
      env,
    });
    const byAgent = await runCli(['run', '--json', '--session', first.agentSessionId.slice(0, 8), 'by agent prefix'], {
      cwd,
      env,
    });
    for (const r of [byTalaria, byAgent]) {
      expect(r.code).toBe(EXIT.OK);
      expect(JSON.parse(r.stdout)).toMatchObject({ sessionId: first.sessionId, agentSessionId: first.agentSessionId });
    }
    const models = JSON.parse(
      (await runCli(['models', '--json', '--session', first.sessionId], { cwd, env })).stdout,
    ) as { sessionId: string };
    expect(models.sessionId).toBe(first.sessionId);
  });

  it("run.started of a session restored from the store: not loaded, origin restored, the session's cwd", async () => {
    const { cwd, env } = workspace();
    const first = JSON.parse((await runCli(['run', '--json', 'first prompt'], { cwd, env })).stdout) as {
      sessionId: string;
    };
    // The agent forgets its sessions: Talaria reopens from its store.
    rmSync(join(env.TALARIA_DEMO_HOME!, 'sessions'), { recursive: true, force: true });
    const elsewhere = tempDir('elsewhere');
    const nd = await runCli(['run', '--ndjson', '--session', first.sessionId, 'second prompt'], {
      cwd: elsewhere,
      env,
    });
    rmSync(join(env.TALARIA_DEMO_HOME!, 'sessions'), { recursive: true, force: true });
    const human = await runCli(['run', '--session', first.sessionId, 'third prompt'], { cwd: elsewhere, env });
    expect(nd.code).toBe(EXIT.OK);
    const started = ndjsonLines(nd.stdout)[0]!;
    expect(started).toMatchObject({ type: 'run.started', sessionId: first.sessionId, origin: 'restored', cwd });
    expect(started).not.toHaveProperty('loaded');
    expect(human.stderr).toContain("Restored from Talaria's store");
  });

  it('SIGINT during the turn cancels it: exit 130, run.ended says cancelled', async () => {
    const { cwd, env } = workspace();
    const cli = startCli(['run', '--ndjson', 'slow'], {
      cwd,
      env: { ...env, TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '5' },
    });
    await cli.until((out) => out.includes('Chunk 1 of'));
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    const lines = ndjsonLines(r.stdout);
    expectValidStream(lines);
    expect(lines.find((l) => l.type === 'turn.ended')).toMatchObject({ stopReason: 'cancelled' });
    expect(lines.at(-1)).toMatchObject({ stopReason: 'cancelled', exitCode: 130 });
  });
});

describe.concurrent('talaria run against misbehaving agents', () => {
  it('an agent that crashes mid-turn: exit 5, agent_crashed, its stderr shown', async () => {
    const cwd = tempDir('crash');
    const r = await runCli(['run', '--agent-cmd', fakeCmd('crash-mid-turn'), 'hi'], { cwd });
    expect(r.code).toBe(EXIT.AGENT_ERROR);
    expect(r.stdout).toContain('working on it');
    expect(r.stderr).toContain('agent_crashed');
    expect(r.stderr).toContain('fake model backend exploded');
    const j = await runCli(['run', '--json', '--agent-cmd', fakeCmd('crash-mid-turn'), 'hi'], { cwd });
    expect(JSON.parse(j.stdout)).toMatchObject({
      stopReason: 'error',
      exitCode: 5,
      error: { code: 'agent_crashed' },
      text: 'working on it...',
    });
  });

  it('an agent that exits during initialize: not ready (6), with its stderr', async () => {
    const cwd = tempDir('init');
    const r = await runCli(['run', '--ndjson', '--agent-cmd', fakeCmd('exit-during-initialize'), 'hi'], { cwd });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stderr).toContain('config.yaml is invalid (line 3)');
    const lines = ndjsonLines(r.stdout);
    expect(lines.map((l) => l.type)).toEqual(['run.started', 'run.ended']);
    expect(lines[1]).toMatchObject({ sessionId: null, exitCode: 6, error: { code: 'not_ready' } });
  });

  it('a command that does not exist: not ready (6)', async () => {
    const cwd = tempDir('enoent');
    const r = await runCli(['run', '--json', '--agent-cmd', 'talaria-no-such-agent-xyz --acp', 'hi'], { cwd });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(JSON.parse(r.stdout)).toMatchObject({
      exitCode: 6,
      error: { code: 'not_ready', message: expect.stringContaining('command not found') },
    });
  });

  it('an agent that hangs: the setup timeout gives not ready (6)', async () => {
    const cwd = tempDir('hang');
    // Initialize answers, session/new never does (a slow machine may time out initialize: same outcome).
    const r = await runCli(['run', '--setup-timeout', '3', '--agent-cmd', fakeCmd('hang'), 'hi'], { cwd });
    expect(r.code).toBe(EXIT.NOT_READY);
    expect(r.stderr).toMatch(/timed out after 3000 ms/);
  });

  it('an agent that hangs: Ctrl-C while the session opens exits 130 at once', async () => {
    const cwd = tempDir('hang-int');
    const cli = startCli(['run', '--verbose', '--agent-cmd', fakeCmd('hang'), 'hi'], { cwd });
    await cli.until((_o, err) => err.includes('Opening a session'));
    cli.child.kill('SIGINT');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
  });

  it('garbage on stdout: the turn still works, each bad line is a protocol.error event', async () => {
    const cwd = tempDir('garbage');
    const r = await runCli(['run', '--ndjson', '--agent-cmd', fakeCmd('garbage-stdout'), 'hi'], { cwd });
    expect(r.code).toBe(EXIT.OK);
    const lines = ndjsonLines(r.stdout);
    expectValidStream(lines);
    const errors = lines.filter((l) => l.type === 'protocol.error');
    expect(errors.length).toBeGreaterThan(5);
    // One session: every error names it by Talaria's id, like every other line.
    const started = lines.find((l) => l.type === 'run.started')!;
    expect(started.agentSessionId).toBe('garbage-1');
    expect(errors.map((l) => l.sessionId)).toEqual(errors.map(() => started.sessionId));
    expect(errors.map((l) => l.preview)).toContain('this is not json');
    const human = await runCli(['run', '--agent-cmd', fakeCmd('garbage-stdout'), 'hi'], { cwd });
    expect(human.code).toBe(EXIT.OK);
    expect(human.stderr).toContain('not ACP');
  });
});

describe.concurrent('talaria usage through a real process', () => {
  it('bad usage exits 2 with one line', async () => {
    const cwd = tempDir('usage');
    const [missing, bogus] = await Promise.all([runCli(['run'], { cwd }), runCli(['run', '--bogus', 'x'], { cwd })]);
    for (const r of [missing, bogus]) {
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stdout).toBe('');
    }
  });

  it('an unknown --session id or --agent is bad usage (2), for run, chat and models alike', async () => {
    const { cwd, env } = workspace();
    const [session, agent, json, chat, models] = await Promise.all([
      runCli(['run', '--session', 'no-such-session', 'x'], { cwd, env }),
      runCli(['run', '--agent', 'nope', 'x'], { cwd, env }),
      runCli(['run', '--json', '--agent', 'nope', 'x'], { cwd, env }),
      runCli(['chat', '--agent', 'nope'], { cwd, env }),
      runCli(['models', '--agent', 'nope'], { cwd, env }),
    ]);
    expect(session.code).toBe(EXIT.USAGE);
    for (const r of [agent, json, chat, models]) {
      expect(r.code).toBe(EXIT.USAGE);
      expect(r.stderr).toContain("unknown agent 'nope' (known: hermes, ");
    }
    expect(JSON.parse(json.stdout)).toMatchObject({ exitCode: EXIT.USAGE, error: { code: 'unknown_agent' } });
  });

  it('a command that does not speak ACP says so: cat (echoes initialize back), a program printing text', async () => {
    const { cwd, env } = workspace();
    const [cat, echo] = await Promise.all([
      runCli(['run', '--setup-timeout', '20', '--agent-cmd', 'cat', 'x'], { cwd, env }),
      runCli(['run', '--setup-timeout', '3', '--agent-cmd', `sh -c 'echo hello world; exec cat >/dev/null'`, 'x'], {
        cwd,
        env,
      }),
    ]);
    expect(cat.code).toBe(EXIT.NOT_READY);
    expect(cat.stderr).toContain(
      'talaria run: cat does not speak ACP: it answered initialize with "Method not found"; pass the command that starts its ACP mode',
    );
    expect(cat.stderr).not.toContain('"Method not found": initialize');
    expect(echo.code).toBe(EXIT.NOT_READY);
    expect(echo.stderr).toContain('does not speak ACP: it wrote "hello world" on stdout, which is not JSON-RPC');
  });

  it('bin/talaria.js runs the CLI from a checkout (through tsx)', async () => {
    const { spawnSync } = await import('node:child_process');
    const r = spawnSync(process.execPath, [BIN, '--version'], { cwd: tempDir('bin'), encoding: 'utf8' });
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(r.stdout.trim()).toBe(`talaria ${pkg.version}`);
  });
});

describe.concurrent('talaria models / mode', () => {
  it('lists, switches, rejects unknown ids', async () => {
    const { cwd, env } = workspace();
    // The listing first: --set without --session makes the workspace default for new sessions.
    const [list, bad, modes] = await Promise.all([
      runCli(['models'], { cwd, env }),
      runCli(['models', '--set', 'gpt-nope'], { cwd, env }),
      runCli(['mode', '--json'], { cwd, env }),
    ]);
    const set = await runCli(['models', '--set', 'demo-thorough', '--json'], { cwd, env });
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/\* demo-fast/);
    expect(list.stdout).toContain('demo-thorough');
    expect(set.code).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ kind: 'model', currentId: 'demo-thorough' });
    expect(bad.code).toBe(EXIT.USAGE);
    expect(bad.stderr).toContain('unknown model');
    expect(JSON.parse(modes.stdout)).toMatchObject({
      kind: 'mode',
      currentId: 'ask',
      options: [expect.objectContaining({ id: 'ask' }), expect.objectContaining({ id: 'auto' })],
    });
  });
});

describe.concurrent('talaria run stopped by a signal', () => {
  const slow = () => {
    const { cwd, env } = workspace();
    return { cwd, env: { ...env, TALARIA_DEMO_SLOW_CHUNKS: '100000', TALARIA_DEMO_SLOW_DELAY_MS: '20' } };
  };
  const storedTurns = async (o: { cwd: string; env: Record<string, string> }) => {
    const listed = JSON.parse((await runCli(['sessions', 'list', '--store-only', '--json'], o)).stdout) as {
      sessions: { id: string }[];
    };
    const exported = JSON.parse(
      (await runCli(['sessions', 'export', listed.sessions[0]!.id, '--format', 'json'], o)).stdout,
    ) as {
      turns: { stopReason?: string; endedAt?: number }[];
    };
    return exported.turns;
  };

  it('SIGTERM cancels the turn: the text so far stays, exit 130, the turn is closed as cancelled in the store', async () => {
    const o = slow();
    const cli = startCli(['run', 'slow'], o);
    await cli.until((out) => out.includes('Chunk 2 of 100000'));
    cli.child.kill('SIGTERM');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    expect(r.stdout).toContain('Chunk 1 of 100000 from the slow demo.');
    expect(r.stderr).toContain('talaria run: SIGTERM: cancelling the turn');
    expect(r.stderr).toContain('talaria run: cancelled');
    expect(await storedTurns(o)).toEqual([
      expect.objectContaining({ stopReason: 'cancelled', endedAt: expect.any(Number) }),
    ]);
  });

  it('SIGHUP with --json: the result is printed (cancelled, 130, the partial text)', async () => {
    const o = slow();
    const wire = join(o.cwd, 'wire.ndjson');
    const cli = startCli(['run', '--json', '--wire-log', wire, 'slow'], o);
    // Nothing is printed before the end with --json: wait until the agent has streamed.
    for (;;) {
      let text = '';
      try {
        text = readFileSync(wire, 'utf8');
      } catch {
        // not created yet
      }
      if (text.includes('Chunk 2 of')) break;
      if (cli.child.exitCode !== null) throw new Error(`exited early: ${cli.stderr()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    cli.child.kill('SIGHUP');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    expect(JSON.parse(r.stdout)).toMatchObject({
      stopReason: 'cancelled',
      exitCode: EXIT.CANCELLED,
      text: expect.stringContaining('Chunk 1 of 100000'),
    });
    expect(await storedTurns(o)).toEqual([expect.objectContaining({ stopReason: 'cancelled' })]);
  });

  it('SIGTERM with --ndjson: run.ended says cancelled, 130', async () => {
    const o = slow();
    const cli = startCli(['run', '--ndjson', 'slow'], o);
    await cli.until((out) => out.includes('Chunk 2 of'));
    cli.child.kill('SIGTERM');
    const r = await cli.done;
    expect(r.code).toBe(EXIT.CANCELLED);
    const lines = ndjsonLines(r.stdout);
    expectValidStream(lines);
    expect(lines[lines.length - 1]).toMatchObject({
      type: 'run.ended',
      stopReason: 'cancelled',
      exitCode: EXIT.CANCELLED,
    });
  });
});

describe.concurrent('a denied permission is not a cancel', () => {
  // The SDK fake agent's `perm-abort` ends the turn `cancelled` when its permission is refused, as codex does.
  const agent = `${nodeCommand(join(ROOT, 'test/fakes/sdk-agent.ts'))}`;

  it('--approve none against an agent that ends the turn cancelled on a reject: exit 9, permission_denied, not 130', async () => {
    const { cwd, env } = workspace();
    const target = join(cwd, 'x.txt');
    const [human, json, ndjson] = await Promise.all([
      runCli(['run', '--approve', 'none', '--agent-cmd', agent, `perm-abort ${target}`], { cwd, env }),
      runCli(['run', '--json', '--approve', 'none', '--agent-cmd', agent, `perm-abort ${target}`], { cwd, env }),
      runCli(['run', '--ndjson', '--approve', 'none', '--agent-cmd', agent, `perm-abort ${target}`], { cwd, env }),
    ]);
    expect(human.code).toBe(EXIT.DENIED);
    expect(human.stderr).toContain('talaria run: the agent stopped because a permission was denied');
    expect(human.stderr).not.toContain('talaria run: cancelled');
    expect(json.code).toBe(EXIT.DENIED);
    expect(JSON.parse(json.stdout)).toMatchObject({
      stopReason: 'permission_denied',
      exitCode: EXIT.DENIED,
      toolCalls: [expect.objectContaining({ permission: 'rejected' })],
    });
    expect(ndjson.code).toBe(EXIT.DENIED);
    const lines = ndjsonLines(ndjson.stdout);
    expect(lines.find((l) => l.type === 'turn.ended')).toMatchObject({ stopReason: 'permission_denied' });
    expect(lines.at(-1)).toMatchObject({ type: 'run.ended', stopReason: 'permission_denied', exitCode: EXIT.DENIED });
  });

  it('the help documents exit code 9', async () => {
    const r = await runCli(['run', '--help'], { cwd: tempDir('help') });
    expect(r.stdout).toContain('9    a permission was denied and the agent ended the turn (permission_denied)');
    expect(readFileSync(join(ROOT, 'docs/ndjson.md'), 'utf8')).toContain(
      '| 9 | a permission was denied and the agent ended the turn (`permission_denied`) |',
    );
  });
});
