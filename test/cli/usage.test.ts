import { describe, it, expect, vi } from 'vitest';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { demoEnv, runCli, tempDir } from './helpers.js';

vi.setConfig({ testTimeout: Number(process.env.TALARIA_TEST_TIMEOUT ?? 180_000) });

/**
 * `talaria usage` and the cost on `sessions show`: Hermes' figures come from its own state.db
 * (the emulator writes the real 0.18.2 schema), read-only; a custom endpoint has no price, which
 * shows as "no price", never $0.
 */
const HERMES_BIN_DIR = fileURLToPath(new URL('../fakes/hermes/bin', import.meta.url));
const FIXTURE = readFileSync(new URL('../fixtures/hermes/state-db-0.18.2.sql', import.meta.url), 'utf8');

function hermesPlace() {
  const cwd = tempDir('usage');
  const hermesHome = tempDir('usage-hermes');
  writeFileSync(
    join(hermesHome, 'config.yaml'),
    'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
  );
  const env = {
    ...demoEnv(tempDir('usage-home')),
    PATH: [HERMES_BIN_DIR, dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
    HOME: tempDir('usage-user'),
    HERMES_HOME: hermesHome,
  };
  return { cwd, env, hermesHome, db: join(hermesHome, 'state.db') };
}

interface UsageJson {
  v: number;
  by: string;
  groups: Array<{
    key: string;
    sessions: number;
    tokens: Record<string, number>;
    cost: { usd?: number; status: string; unpriced: number };
  }>;
  total: { sessions: number; cost: { usd?: number; status: string } };
  sessions: Array<{
    sessionId: string;
    agentSessionId?: string;
    from: string;
    cost: { usd?: number; status: string };
    tokens: Record<string, number>;
    hermes?: Record<string, unknown>;
  }>;
  problems: string[];
}

describe.concurrent('talaria usage', () => {
  it('Hermes: tokens and cost from its state.db; a custom endpoint is "no price" (text, JSON, CSV, sessions show); the db is never written', async () => {
    const p = hermesPlace();
    const first = await runCli(['run', '--json', '--agent', 'hermes', 'hello'], p);
    expect(first.code, first.stderr).toBe(0);
    const { sessionId, agentSessionId } = JSON.parse(first.stdout) as { sessionId: string; agentSessionId: string };
    expect((await runCli(['run', '--json', '--session', sessionId, 'again'], p)).code).toBe(0);

    const before = { bytes: readFileSync(p.db), mtime: statSync(p.db).mtimeMs };
    const j = await runCli(['usage', '--json'], p);
    expect(j.code, j.stderr).toBe(0);
    const u = JSON.parse(j.stdout) as UsageJson;
    expect(u.problems).toEqual([]);
    expect(u.groups).toEqual([
      {
        key: 'hermes',
        sessions: 1,
        tokens: { input: 2400, output: 68, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 2468 },
        cost: { status: 'unknown', unpriced: 1 },
      },
    ]);
    expect(u.sessions[0]).toMatchObject({
      sessionId,
      agentSessionId,
      from: 'hermes-state-db',
      cost: { status: 'unknown' },
      hermes: { costStatus: 'unknown', costSource: 'none', model: 'fake-model', apiCalls: 2 },
    });
    expect(u.sessions[0]!.cost.usd).toBeUndefined();

    const text = await runCli(['usage'], p);
    expect(text.stdout).toMatch(
      /^AGENT +SESSIONS +INPUT +OUTPUT +TOTAL +COST\nhermes +1 +2,400 +68 +2,468 +no price\ntotal +1 +2,400 +68 +2,468 +no price\n$/,
    );
    expect(text.stdout).not.toMatch(/\$0/);

    const day = new Date().toISOString().slice(0, 10);
    const csv = await runCli(['usage', '--by', 'day', '--csv'], p);
    expect(csv.stdout).toBe(
      `day,sessions,input_tokens,output_tokens,cache_read_tokens,cache_write_tokens,reasoning_tokens,total_tokens,cost_usd,cost_status,unpriced_sessions\n${day},1,2400,68,0,0,0,2468,,unknown,1\n`,
    );

    const shown = await runCli(['sessions', 'show', sessionId], p);
    expect(shown.stdout).toMatch(
      /\n---\nUsage: 2,400 input · 68 output · 2,468 total tokens · cost no price \(from Hermes' state\.db\)\n$/,
    );
    const shownJson = JSON.parse((await runCli(['sessions', 'show', sessionId, '--json'], p)).stdout) as {
      format: string;
      usage: UsageJson['sessions'][0];
    };
    expect(shownJson.format).toBe('talaria.session');
    expect(shownJson.usage).toMatchObject({
      from: 'hermes-state-db',
      cost: { status: 'unknown' },
      tokens: { input: 2400, output: 68 },
    });

    expect(readFileSync(p.db).equals(before.bytes)).toBe(true);
    expect(statSync(p.db).mtimeMs).toBe(before.mtime);

    // A state.db whose sessions table lacks a column: "unknown shape" on stderr, Talaria's own figures instead.
    const ro = new Database(p.db, { readonly: true });
    const row = ro.prepare('SELECT * FROM sessions WHERE id = ?').get(agentSessionId) as Record<string, unknown>;
    ro.close();
    renameSync(p.db, `${p.db}.real`);
    const odd = new Database(p.db);
    odd.exec(FIXTURE.replace('    cost_status TEXT,\n', ''));
    odd.prepare('INSERT INTO schema_version (version) VALUES (22)').run();
    odd
      .prepare('INSERT INTO sessions (id, source, started_at, input_tokens, estimated_cost_usd) VALUES (?, ?, ?, ?, ?)')
      .run(agentSessionId, 'acp', row.started_at, 5, 0);
    odd.close();
    const shape = await runCli(['usage', '--json'], p);
    expect(shape.code).toBe(0);
    expect(shape.stderr).toMatch(
      /talaria usage: unknown shape of Hermes state\.db \(schema_version 22\): its sessions table has no cost_status/,
    );
    const su = JSON.parse(shape.stdout) as UsageJson;
    expect(su.problems).toHaveLength(1);
    expect(su.sessions[0]).toMatchObject({ from: 'talaria', cost: { status: 'unknown' } });
    const shapeShow = await runCli(['sessions', 'show', sessionId], p);
    expect(shapeShow.code).toBe(0);
    expect(shapeShow.stderr).toMatch(/unknown shape/);
    expect(shapeShow.stdout).toMatch(/cost no price \(from Talaria\)\n$/);

    // A locked db: "busy", no crash, no long wait.
    renameSync(`${p.db}.real`, p.db);
    const locker = new Database(p.db);
    locker.pragma('locking_mode = EXCLUSIVE');
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const busy = await runCli(['usage'], p);
      expect(busy.code).toBe(0);
      expect(busy.stderr).toMatch(/talaria usage: Hermes state\.db is busy/);
      expect(busy.stdout).toMatch(/no price/);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
  });

  it("Hermes by what it says in initialize: a plain `hermes -p work acp` command reads that profile's state.db; subagent rows are added in", async () => {
    const p = hermesPlace();
    const work = join(p.hermesHome, 'profiles', 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(
      join(work, 'config.yaml'),
      'model:\n  default: fake-model\n  provider: custom\n  base_url: http://127.0.0.1:9/v1\n',
    );
    const r = await runCli(['run', '--json', '--agent-cmd', 'hermes -p work acp', 'hello'], p);
    expect(r.code, r.stderr).toBe(0);
    const { sessionId, agentSessionId } = JSON.parse(r.stdout) as { sessionId: string; agentSessionId: string };
    const db = join(work, 'state.db');
    // A delegate_task child as a built 0.18.2 records it: its own row, source 'subagent', parent = the ACP session.
    const w = new Database(db);
    w.prepare(
      "INSERT INTO sessions (id, source, parent_session_id, started_at, end_reason, input_tokens, output_tokens, api_call_count, estimated_cost_usd, cost_status, cost_source) VALUES ('20261206_070941_e053b7', 'subagent', ?, 1, 'agent_close', 3623, 54, 2, 0.0, 'unknown', 'none')",
    ).run(agentSessionId);
    w.close();
    const u = JSON.parse((await runCli(['usage', '--json'], p)).stdout) as UsageJson;
    expect(u.sessions[0]).toMatchObject({
      sessionId,
      from: 'hermes-state-db',
      tokens: { input: 1200 + 3623, output: 34 + 54 },
      hermes: { apiCalls: 3, lineage: { continuations: 0, subagents: 1, unpricedParts: 2 } },
    });
    const shown = await runCli(['sessions', 'show', sessionId], p);
    expect(shown.stdout).toMatch(
      /Usage: 4,823 input · 88 output · 4,911 total tokens · cost no price \(from Hermes' state\.db; incl\. 1 subagent\)\n$/,
    );
  });

  it('other agents: tokens from the stored turns, no price when the agent sent none; bad options are usage errors', async () => {
    const cwd = tempDir('usage-demo');
    const p = {
      cwd,
      env: {
        ...demoEnv(tempDir('usage-demo-home')),
        PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
        HOME: tempDir('usage-demo-user'),
      },
    };
    expect((await runCli(['usage'], p)).stdout).toBe('No stored sessions.\n');
    expect((await runCli(['run', 'hello'], p)).code).toBe(0);
    const u = JSON.parse((await runCli(['usage', '--by', 'workspace', '--json'], p)).stdout) as UsageJson;
    expect(u.by).toBe('workspace');
    expect(u.groups).toHaveLength(1);
    expect(u.groups[0]!.cost).toEqual({ status: 'unknown', unpriced: 1 });
    expect(u.sessions[0]).toMatchObject({ from: 'talaria', cost: { status: 'unknown' } });
    expect((await runCli(['usage', '--by', 'month'], p)).code).toBe(2);
    expect((await runCli(['usage', '--json', '--csv'], p)).code).toBe(2);
    expect((await runCli(['usage', '--help'], p)).stdout).toMatch(
      /^Usage: talaria usage \[--by agent\|workspace\|day\] \[--json \| --csv\]/,
    );
  });
});
