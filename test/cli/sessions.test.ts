import { describe, it, expect, vi } from 'vitest';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EXIT } from '../../src/cli/exit-codes.js';
import { FIXTURES, ROOT, demoEnv, fakeCmd, ndjsonLines, runCli, tempDir } from './helpers.js';
import { nodeCommand } from '../prebuilt.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 90_000) });

/** `talaria sessions …` and continuing sessions across processes (each command is a new process). */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));

function place() {
  const cwd = tempDir('sess');
  writeFileSync(join(cwd, 'notes.txt'), 'hello notes\n');
  return {
    cwd,
    env: {
      ...demoEnv(tempDir('sess-home')),
      PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
      HOME: tempDir('user'),
    },
  };
}

interface Listed {
  sessions: {
    id: string;
    agentSessionId?: string;
    stored: boolean;
    atAgent?: boolean;
    archived: boolean;
    title?: string;
  }[];
}
const listJson = async (p: ReturnType<typeof place>, ...args: string[]) =>
  JSON.parse((await runCli(['sessions', 'list', '--json', ...args], p)).stdout) as Listed;

describe.concurrent('sessions survive the process', () => {
  it('run a turn, exit; `sessions list` in a new process; `run --session ID` continues it', async () => {
    const p = place();
    const first = await runCli(['run', '--json', 'first prompt'], p);
    expect(first.code).toBe(0);
    const { sessionId, agentSessionId: agentId } = JSON.parse(first.stdout) as {
      sessionId: string;
      agentSessionId: string;
    };
    const listed = await listJson(p);
    expect(listed.sessions).toEqual([
      expect.objectContaining({ agentSessionId: agentId, stored: true, atAgent: true, archived: false }),
    ]);
    const id = listed.sessions[0]!.id;
    // One id in the interface: run --json's sessionId is the one sessions list shows.
    expect(sessionId).toBe(id);
    expect(agentId).not.toBe(id);
    const human = await runCli(['sessions', 'list'], p);
    expect(human.stdout).toMatch(
      new RegExp(`^ID +AGENT +UPDATED \\(UTC\\) +STATE +TITLE\\n${id} +demo +\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d +\\S`),
    );

    // Continue by a prefix of Talaria's id: the agent loads it, the turn runs, same agent session.
    const second = await runCli(['run', '--ndjson', '--session', id.slice(0, 8), 'second prompt'], p);
    expect(second.code).toBe(0);
    const lines = ndjsonLines(second.stdout);
    expect(lines[0]).toMatchObject({
      type: 'run.started',
      sessionId: id,
      agentSessionId: agentId,
      loaded: true,
      origin: 'loaded',
    });
    expect(lines.every((l) => l.sessionId === id)).toBe(true);
    const users = lines.filter(
      (l) => l.type === 'entry.added' && (l.entry as { kind: string }).kind === 'user_message',
    );
    expect(users.map((l) => (l.entry as { text: string }).text)).toEqual(['first prompt', 'second prompt']);
    const shown = await runCli(['sessions', 'show', id], p);
    expect(shown.stdout).toMatch(/### User\n\nfirst prompt\n[\s\S]*### User\n\nsecond prompt\n/);
    expect((await runCli(['run', '--session', 'no-such-id', 'x'], p)).code).toBe(EXIT.USAGE);
  });

  // About twenty CLI processes one after another: on a loaded 2-core machine that alone can pass 90 s.
  it('archive, unarchive, export (md, json, fixture to a file), import, fork', { timeout: 240_000 }, async () => {
    const p = place();
    await runCli(['run', 'keep this'], p);
    const id = (await listJson(p, '--store-only')).sessions[0]!.id;

    expect((await runCli(['sessions', 'archive', id], p)).stdout).toMatch(new RegExp(`^Archived ${id}`));
    expect((await listJson(p)).sessions).toEqual([]);
    expect((await listJson(p, '--archived')).sessions).toEqual([expect.objectContaining({ id, archived: true })]);
    expect((await runCli(['sessions', 'list', '--archived-only'], p)).stdout).toContain(`${id}`);
    expect((await runCli(['sessions', 'unarchive', id], p)).stdout).toMatch(/^Unarchived/);
    expect((await listJson(p)).sessions.map((s) => s.id)).toEqual([id]);

    const [md, json] = await Promise.all([
      runCli(['sessions', 'export', id], p),
      runCli(['sessions', 'export', id, '--format', 'json'], p),
    ]);
    expect(md.stdout).toMatch(/### User\n\nkeep this\n/);
    expect(JSON.parse(json.stdout)).toMatchObject({ format: 'talaria.session', session: { id } });
    const file = join(p.cwd, 'session.ndjson');
    expect((await runCli(['sessions', 'export', id, '--format', 'fixture', '--out', file], p)).code).toBe(0);
    const replayed = await runCli(['replay', file], p);
    expect(replayed.stdout).toContain('keep this');

    const imported = await runCli(['sessions', 'import', file, '--title', 'Imported copy'], p);
    expect(imported.code).toBe(0);
    const newId = imported.stdout.trim();
    expect(newId).toMatch(/^[0-9a-f-]{36}$/);
    expect(imported.stderr).toContain('as a demo session (Imported copy)');
    expect((await runCli(['sessions', 'show', newId], p)).stdout).toMatch(/^# Imported copy\n[\s\S]*keep this/);
    const hermes = await runCli(['sessions', 'import', join(FIXTURES, 'tools.ndjson')], p);
    expect((await runCli(['sessions', 'show', hermes.stdout.trim()], p)).stdout).toContain('+second file');

    const fork = await runCli(['sessions', 'fork', id], p);
    expect(fork.code).toBe(0);
    const forkId = fork.stdout.trim();
    expect(forkId).not.toBe(id);
    expect(fork.stderr).toContain('in Talaria: the agent starts without the earlier context');
    const cont = await runCli(['run', '--json', '--session', forkId, 'in the fork'], p);
    expect(cont.code).toBe(0);
    expect((await runCli(['sessions', 'show', forkId], p)).stdout).toMatch(/keep this[\s\S]*in the fork/);
    expect((await runCli(['sessions', 'show', id], p)).stdout).not.toContain('in the fork');

    for (const args of [
      ['show', 'nope-nope'],
      ['archive', 'nope-nope'],
      ['import', join(p.cwd, 'notes.txt')],
    ]) {
      const r = await runCli(['sessions', ...args], p);
      expect(r.code, args.join(' ')).toBe(EXIT.USAGE);
      expect(r.stderr.trim().split('\n'), args.join(' ')).toHaveLength(1);
    }
  });

  it('Hermes (emulator): the session is in both lists and continues after a restart', async () => {
    const p = place();
    const hermesHome = tempDir('hermes');
    writeFileSync(
      join(hermesHome, 'config.yaml'),
      'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
    );
    const env = { ...p.env, PATH: `${HERMES_BIN_DIR}:${p.env.PATH}`, HERMES_HOME: hermesHome };
    const h = { cwd: p.cwd, env };
    const first = await runCli(['run', '--json', 'hello'], h);
    expect(JSON.parse(first.stdout)).toMatchObject({
      stopReason: 'end_turn',
      text: 'Hello from the fake model! You said: hello',
    });
    const listed = await listJson(h);
    expect(listed.sessions).toEqual([expect.objectContaining({ stored: true, atAgent: true })]);
    const again = await runCli(['run', '--json', '--session', listed.sessions[0]!.id, 'again'], h);
    expect(JSON.parse(again.stdout)).toMatchObject({
      sessionId: (JSON.parse(first.stdout) as { sessionId: string }).sessionId,
      text: 'Hello from the fake model! You said: again',
    });
    const shown = readFileSync(join(hermesHome, 'config.yaml'), 'utf8');
    expect(shown).toContain('fake-model'); // Talaria never writes Hermes' config
  });
});

describe.concurrent('sessions nobody prompted', () => {
  it('`talaria models` opens a session to list them; it is archived on exit, out of the listings', async () => {
    const p = place();
    const r = await runCli(['models'], p);
    expect(r.code).toBe(0);
    expect((await listJson(p, '--store-only')).sessions).toEqual([]);
    expect((await listJson(p, '--store-only', '--archived')).sessions).toEqual([
      expect.objectContaining({ archived: true }),
    ]);
    // The agent still lists it, but Talaria's archive wins.
    expect((await listJson(p)).sessions).toEqual([]);
  });
});

describe.concurrent('--agent-cmd sessions', () => {
  it('remember their command: `--session ID` alone reopens them; an agent that cannot load gets the stored history', async () => {
    const p = place();
    const first = await runCli(['run', '--json', '--agent-cmd', fakeCmd('echo-agent'), 'first words'], p);
    expect(JSON.parse(first.stdout)).toMatchObject({ stopReason: 'end_turn', text: 'first words' });
    const listed = await listJson(p, '--store-only');
    expect(listed.sessions).toEqual([
      expect.objectContaining({ provider: expect.stringMatching(/^cmd:node-[0-9a-f]{6}$/) }),
    ]);
    const id = listed.sessions[0]!.id;
    const second = await runCli(['run', '--ndjson', '--session', id, 'second words'], p);
    expect(second.code).toBe(0);
    const lines = ndjsonLines(second.stdout);
    const added = lines
      .filter((l) => l.type === 'entry.added')
      .map((l) => l.entry as { kind: string; text?: string; code?: string });
    expect(added.filter((e) => e.kind === 'user_message').map((e) => e.text)).toEqual(['first words', 'second words']);
    expect(added.find((e) => e.kind === 'notice')).toMatchObject({ code: 'history_restored' });
    expect((await runCli(['sessions', 'show', id], p)).stdout).toMatch(/first words[\s\S]*second words/);
  });

  it('sessions list takes --agent-cmd like the other agent options: the agent is asked, its stored sessions shown', async () => {
    const p = place();
    const sdk = `${nodeCommand(join(ROOT, 'test/fakes/sdk-agent.ts'))}`;
    const first = JSON.parse((await runCli(['run', '--json', '--agent-cmd', sdk, 'hello'], p)).stdout) as {
      sessionId: string;
    };
    const r = await runCli(['sessions', 'list', '--json', '--agent-cmd', sdk], p);
    expect(r.code).toBe(0);
    const listed = JSON.parse(r.stdout) as Listed & { agentProblem?: string };
    expect(listed.agentProblem).toBeUndefined(); // the agent was asked (a new process lists none of its own)
    expect(listed.sessions).toEqual([expect.objectContaining({ id: first.sessionId, stored: true, atAgent: false })]);
    const both = await runCli(['sessions', 'list', '--agent', 'demo', '--agent-cmd', sdk], p);
    expect(both.code).toBe(EXIT.USAGE);
  });
});

describe.concurrent('reopening when the agent cannot load', () => {
  // gemini-cli 0.61 answers session/load of its own (earlier-process) sessions with -32603.
  const gemini = `${nodeCommand(join(ROOT, 'test/fakes/sdk-agent.ts'))} --load-error gemini`;

  it('any load failure falls back to the stored thread (here -32603 "No previous sessions found")', async () => {
    const p = place();
    const first = JSON.parse((await runCli(['run', '--json', '--agent-cmd', gemini, 'first words'], p)).stdout) as {
      sessionId: string;
    };
    const second = await runCli(['run', '--ndjson', '--session', first.sessionId, 'second words'], p);
    expect(second.code).toBe(0);
    const lines = ndjsonLines(second.stdout);
    expect(lines[0]).toMatchObject({ type: 'run.started', sessionId: first.sessionId, origin: 'restored' });
    const added = lines
      .filter((l) => l.type === 'entry.added')
      .map((l) => l.entry as { kind: string; text?: string; code?: string });
    expect(added.filter((e) => e.kind === 'user_message').map((e) => e.text)).toEqual(['first words', 'second words']);
    expect(added.find((e) => e.kind === 'notice')).toMatchObject({
      code: 'history_restored',
      text: expect.stringContaining('the agent no longer has it'),
    });
  });

  it("a load failure that says nothing about the session falls back too, and the notice gives the agent's words", async () => {
    const p = place();
    const locked = gemini.replace('--load-error gemini', '--load-error internal');
    const first = JSON.parse((await runCli(['run', '--json', '--agent-cmd', locked, 'first words'], p)).stdout) as {
      sessionId: string;
    };
    const second = await runCli(['run', '--ndjson', '--session', first.sessionId, 'second words'], p);
    expect(second.code).toBe(0);
    const notice = ndjsonLines(second.stdout)
      .map((l) => l.entry as { kind?: string; text?: string } | undefined)
      .find((e) => e?.kind === 'notice');
    expect(notice?.text).toContain('the agent could not load it: Internal error: session store is locked');
  });

  it('an id neither Talaria nor the agent knows is bad usage (2), whatever error the agent gives', async () => {
    const p = place();
    const r = await runCli(['run', '--agent-cmd', gemini, '--session', 'no-such-session-anywhere', 'x'], p);
    expect(r.code).toBe(EXIT.USAGE);
    expect(r.stderr).toContain('no session no-such-session-anywhere');
  });
});

describe.concurrent('the chosen model and mode stay chosen', () => {
  // An agent that forgets everything when its process ends (sessions reopen from Talaria's store).
  const sdk = `${nodeCommand(join(ROOT, 'test/fakes/sdk-agent.ts'))}`;
  const current = async (p: ReturnType<typeof place>, kind: 'models' | 'mode', ...args: string[]) =>
    (JSON.parse((await runCli([kind, '--json', '--agent-cmd', sdk, ...args], p)).stdout) as { currentId: string })
      .currentId;

  it('models/mode --session S --set: stored with the session, re-applied when it is reopened', async () => {
    const p = place();
    const first = JSON.parse((await runCli(['run', '--json', '--agent-cmd', sdk, 'hello'], p)).stdout) as {
      sessionId: string;
    };
    const setModel = await runCli(['models', '--agent-cmd', sdk, '--session', first.sessionId, '--set', 'm-large'], p);
    expect(setModel.code).toBe(0);
    expect(setModel.stdout).toContain(`Model set to m-large (session ${first.sessionId}; kept when it is reopened)`);
    expect((await runCli(['mode', '--agent-cmd', sdk, '--session', first.sessionId, '--set', 'yolo'], p)).code).toBe(0);
    // A new process: the agent has forgotten the session; Talaria restores it with the choices.
    const again = await runCli(['run', '--ndjson', '--session', first.sessionId, 'again'], p);
    expect(again.code).toBe(0);
    const catalogs = ndjsonLines(again.stdout).filter((l) => l.type === 'catalog.updated');
    expect(catalogs.at(-1)).toMatchObject({
      catalog: { model: { currentId: 'm-large' }, mode: { currentId: 'yolo' } },
    });
    expect(await current(p, 'models', '--session', first.sessionId)).toBe('m-large');
  });

  it("models/mode --set without --session: the workspace default for that agent's new sessions", async () => {
    const p = place();
    const set = await runCli(['models', '--agent-cmd', sdk, '--set', 'm-large'], p);
    expect(set.code).toBe(0);
    expect(set.stdout).toMatch(/^Model m-large is now the default for new .* sessions in /);
    expect((await runCli(['mode', '--agent-cmd', sdk, '--set', 'yolo'], p)).code).toBe(0);
    const run = await runCli(['run', '--ndjson', '--agent-cmd', sdk, 'hello'], p);
    expect(
      ndjsonLines(run.stdout)
        .filter((l) => l.type === 'catalog.updated')
        .at(-1),
    ).toMatchObject({ catalog: { model: { currentId: 'm-large' }, mode: { currentId: 'yolo' } } });
    expect(await current(p, 'models')).toBe('m-large');
    // Another workspace keeps the agent's own default.
    expect(await current({ ...p, cwd: tempDir('other-ws') }, 'models')).toBe('m-small');
    // An id the agent does not offer is bad usage and changes nothing.
    const bad = await runCli(['models', '--agent-cmd', sdk, '--set', 'no-such-model'], p);
    expect(bad.code).toBe(EXIT.USAGE);
    expect(await current(p, 'models')).toBe('m-large');
  });
});
