import { describe, it, expect, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkEvent } from '../../src/session/events.js';
import { EXIT } from '../../src/cli/exit-codes.js';
import { FIXTURES, demoEnv, fakeCmd, ndjsonLines, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 60_000) });

const fixture = (name: string) => join(FIXTURES, name);

describe.concurrent('talaria replay FILE (Markdown)', () => {
  it('prints each Hermes fixture as a readable thread', async () => {
    const cwd = tempDir('replay-md');
    const [main, noauth, profile, reload, tools] = await Promise.all(
      ['main', 'noauth', 'profile', 'reload', 'tools'].map((n) => runCli(['replay', fixture(`${n}.ndjson`)], { cwd })),
    );
    for (const r of [main, noauth, profile, reload, tools]) expect(r!.code).toBe(EXIT.OK);

    expect(main!.stdout).toMatch(
      /^# Fake title\n\n### User\n\nhello there\n\n### Assistant\n\nHello from the fake model! You said: hello there\n/,
    );
    expect(main!.stdout).toContain('### Tool: terminal: echo hello-from-terminal');
    expect(main!.stdout).toContain('This reply streams slowly so');
    // The recorded prompt to an unknown session and the failed load are reported on stderr.
    expect(main!.stderr).toContain('session/prompt for a session the log never opened');

    expect(noauth!.stdout).toContain('# Replay of noauth.ndjson');
    expect(noauth!.stdout).toContain('No LLM provider configured');

    expect(profile!.stdout).toContain('Hello from the fake model! You said: hello there');

    expect(reload!.stdout).toContain('# Thread (session 217209e8-e55d-4cbb-aad7-640f0207efd0)');
    expect(reload!.stdout).toContain('# Thread (session 61eb2cd6-4c9d-422a-b5b4-08a458869cd5)');
    expect(reload!.stdout.match(/### Tool: write: \/workspace\/out\.txt/g)).toHaveLength(1);

    const t = tools!.stdout;
    expect(t).toContain(
      '### Tool: read: /workspace/notes.txt\n\n- kind: `read`\n- status: completed (settled at turn end)',
    );
    expect(t).toContain('- permission: rejected (`deny`)');
    expect(t).toContain('+second file');
    expect(t).toContain('## Plan\n\n- [x] Inspect notes\n- [ ] Write summary _(in progress)_\n- [ ] Ship it');
    expect(t).toContain('<summary>Thinking</summary>');
  });

  it('--session picks one session; an unknown one is bad usage', async () => {
    const cwd = tempDir('replay-one');
    const [one, none] = await Promise.all([
      runCli(['replay', '--session', '61eb2cd6-4c9d-422a-b5b4-08a458869cd5', fixture('reload.ndjson')], { cwd }),
      runCli(['replay', '--session', 'nope', fixture('reload.ndjson')], { cwd }),
    ]);
    expect(one.code).toBe(0);
    expect(one.stdout).not.toContain('217209e8');
    expect(none.code).toBe(EXIT.USAGE);
  });

  it('--ndjson: valid versioned events between run.started and run.ended', async () => {
    const cwd = tempDir('replay-nd');
    const r = await runCli(['replay', '--ndjson', fixture('tools.ndjson')], { cwd });
    expect(r.code).toBe(0);
    const lines = ndjsonLines(r.stdout);
    expect(lines[0]).toMatchObject({ v: 1, type: 'run.started', source: 'tools.ndjson', seq: 1 });
    expect(lines.at(-1)).toMatchObject({ type: 'run.ended', stopReason: 'end_turn', exitCode: 0 });
    lines.forEach((l, i) => {
      expect(l.seq).toBe(i + 1);
      if (!String(l.type).startsWith('run.')) expect(checkEvent(l as { type: string })).toBeNull();
    });
    expect(lines.filter((l) => l.type === 'turn.ended')).toHaveLength(5);
  });

  it('a file that is not a wire log is bad usage', async () => {
    const cwd = tempDir('replay-bad');
    writeFileSync(join(cwd, 'x.txt'), 'hello\nworld\n');
    const r = await runCli(['replay', join(cwd, 'x.txt')], { cwd });
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toBe(
      `talaria: replay: ${join(cwd, 'x.txt')} is not a wire log (one {"t_ms","dir","msg"} per line)\n`,
    );
  });
});

/**
 * Live `run --ndjson` with its wire log captured, then `replay --ndjson` of that log: the same
 * events. Timing fields differ (at, seq, durationMs, a tool call's startedAt/endedAt), turn ids are random per process (mapped by
 * order), and run.started/run.ended describe the source (agent vs file).
 *
 * One ordering is timing too: updates the agent sends right after the session/new answer may
 * reach the live client in the same read as the answer, and are then applied before the answer
 * takes effect (commands.updated before catalog.updated) — or not, when they come in a later
 * read. The wire log does not record reads, so the setup events (before the first turn starts)
 * are compared as a set; everything from the turn on is compared in order.
 *
 * Reads decide one more thing: the text chunks of one message that arrive in one read are folded
 * into one event (`chunks`), so how a message's growth is split into events is timing as well.
 * Consecutive growth events of one message are compared as one (its first event's type, its
 * last entry, all the text appended).
 */
function normalize(stdout: string): unknown[] {
  const events = foldGrowth(normalizeLines(stdout));
  const turn = events.findIndex(
    (l) =>
      (l as { type: string; state?: string }).type === 'session.state' && (l as { state: string }).state === 'running',
  );
  const setup = events.slice(1, turn).sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  return [events[0], ...setup, ...events.slice(turn)];
}

type Line = Record<string, unknown> & { type?: string; index?: number; appended?: string; entry?: { kind?: string } };

function foldGrowth(lines: unknown[]): unknown[] {
  const out: Line[] = [];
  for (const raw of lines) {
    const { chunks: _c, ...l } = raw as Line;
    const prev = out.at(-1);
    if (
      l.type === 'entry.updated' &&
      typeof l.appended === 'string' &&
      prev &&
      (prev.type === 'entry.added' || prev.type === 'entry.updated') &&
      prev.index === l.index
    ) {
      out[out.length - 1] = {
        ...prev,
        entry: l.entry,
        ...(typeof prev.appended === 'string' ? { appended: prev.appended + l.appended } : {}),
      };
    } else out.push(l);
  }
  return out;
}

function normalizeLines(stdout: string): unknown[] {
  const turnIds = new Map<string, string>();
  const mapTurns = (s: string) =>
    s.replace(/turn-[0-9a-f]{8}-\d+/g, (id) => {
      if (!turnIds.has(id)) turnIds.set(id, `turn#${turnIds.size + 1}`);
      return turnIds.get(id)!;
    });
  const lines = ndjsonLines(mapTurns(stdout));
  // A live run's lines carry Talaria's id; a wire log knows only the agent's (run.started names both).
  const started = lines[0] as { sessionId?: string; agentSessionId?: string };
  const agentId = (id: unknown) => (started.agentSessionId && id === started.sessionId ? started.agentSessionId : id);
  return lines
    .map((l): Record<string, unknown> => ({ ...l, sessionId: agentId(l.sessionId) }))
    .map((l) => {
      const { at: _at, seq: _seq, durationMs: _d, ...rest } = l;
      // A tool call's start and end times are timing too (the replay's clock is the log's).
      const entry = rest.entry as Record<string, unknown> | undefined;
      if (entry && entry.kind === 'tool_call') {
        const { startedAt: _s, endedAt: _e, ...timeless } = entry;
        rest.entry = timeless;
      }
      if (rest.type === 'run.started') return { type: rest.type, sessionId: rest.sessionId };
      if (rest.type === 'run.ended')
        return { type: rest.type, sessionId: rest.sessionId, stopReason: rest.stopReason, exitCode: rest.exitCode };
      return rest;
    });
}

async function liveThenReplay(args: string[], env: Record<string, string> = {}) {
  const cwd = tempDir('equiv');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  const wire = join(cwd, 'wire.ndjson');
  const live = await runCli(['run', '--ndjson', '--wire-log', wire, ...args], {
    cwd,
    env: { ...demoEnv(tempDir('equiv-home')), ...env },
  });
  const approve = args.includes('--approve') ? ['--approve', args[args.indexOf('--approve') + 1]!] : [];
  const replay = await runCli(['replay', '--ndjson', ...approve, wire], { cwd });
  expect(replay.code).toBe(0);
  return { live, replay, wire: readFileSync(wire, 'utf8') };
}

describe.concurrent('run --ndjson ≡ replay --ndjson of the same turn', () => {
  it('the demo tour with --approve all (plan, read, edit, run, policy decisions)', async () => {
    const { live, replay, wire } = await liveThenReplay(['--approve', 'all', 'tour']);
    expect(live.code).toBe(0);
    expect(wire).toContain('"session/request_permission"');
    const a = normalize(live.stdout);
    expect(a.length).toBeGreaterThan(30); // a message's growth counts once (foldGrowth)
    expect(normalize(replay.stdout)).toEqual(a);
  });

  it('an edit rejected by --approve none', async () => {
    const { live, replay } = await liveThenReplay(['--approve', 'none', 'edit notes.txt']);
    const a = normalize(live.stdout);
    expect(
      a.some(
        (l) =>
          (l as { type: string; decidedBy?: string }).type === 'permission.decided' &&
          (l as { decidedBy: string }).decidedBy === 'policy',
      ),
    ).toBe(true);
    expect(normalize(replay.stdout)).toEqual(a);
  });

  it('an edit rejected because nobody could be asked (recorded answers)', async () => {
    const { live, replay } = await liveThenReplay(['edit notes.txt']);
    const a = normalize(live.stdout);
    expect(a.filter((l) => (l as { type: string }).type === 'permission.asked')).toHaveLength(1);
    expect(normalize(replay.stdout)).toEqual(a);
  });

  it('an agent that crashes mid-turn: same events, same failure code', async () => {
    const cwd = tempDir('equiv-crash');
    const wire = join(cwd, 'wire.ndjson');
    const live = await runCli(['run', '--ndjson', '--wire-log', wire, '--agent-cmd', fakeCmd('crash-mid-turn'), 'hi'], {
      cwd,
    });
    const replay = await runCli(['replay', '--ndjson', wire], { cwd });
    expect(live.code).toBe(EXIT.AGENT_ERROR);
    // The error's message and data say how it died (exit code, stderr) live; the log only knows it stopped.
    // So does the failed turn's notice, which quotes that message.
    const strip = (lines: unknown[]) =>
      lines.map((l) => {
        const o = l as { error?: { code: string }; entry?: { kind?: string; code?: string; text?: string } };
        if (o.entry?.kind === 'notice' && o.entry.code === 'turn_failed')
          return { ...o, entry: { ...o.entry, text: o.entry.text!.replace(/:.*/s, ':') } };
        return o.error ? { ...o, error: { code: o.error.code } } : o;
      });
    const a = strip(normalize(live.stdout));
    expect(a.at(-2)).toMatchObject({ type: 'turn.ended', stopReason: 'error', error: { code: 'agent_crashed' } });
    expect(strip(normalize(replay.stdout))).toEqual(
      a.map((l) => ((l as { type: string }).type === 'run.ended' ? { ...(l as object), exitCode: 5 } : l)),
    );
  });
});
