/**
 * Hermes' state.db: the emulator writes it with the real 0.18.2 schema (fixture DDL) and fills
 * the token and cost columns as Hermes does; Talaria's reader reads it read-only, checks its
 * shape, survives a locked database and never changes the file.
 */
import { copyFileSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import {
  addCosts,
  formatCost,
  formatCostTotal,
  hermesCost,
  HERMES_USAGE_COLUMNS,
  readHermesUsage,
} from '../../../src/providers/hermes/state-db.js';
import { openSession } from '../../fakes/hermes/test-client.js';
import { prompt, useEnv } from '../../fakes/hermes/test-env.js';

const { makeHome, makeWs, start } = useEnv('hermes-state-db-');
const FIXTURE = readFileSync(new URL('../../fixtures/hermes/state-db-0.18.2.sql', import.meta.url), 'utf8');

async function sessionWithTurns(home: string, turns: string[], env: Record<string, string> = {}): Promise<string> {
  const c = start(home, env);
  const { id } = await openSession(c, makeWs());
  for (const t of turns) expect((await prompt(c, id, t)).res.result.stopReason).toBe('end_turn');
  c.kill();
  await c.exited;
  return id;
}

describe("Hermes state.db (the emulator's, real 0.18.2 schema)", () => {
  it('the emulator writes the fixture DDL verbatim, schema_version 21, WAL', async () => {
    const home = makeHome();
    await sessionWithTurns(home, ['hello']);
    const db = new Database(join(home, 'state.db'), { readonly: true });
    try {
      const ddl = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'sessions'").get() as {
        sql: string;
      };
      expect(FIXTURE).toContain(ddl.sql.replace(/^CREATE TABLE /, 'CREATE TABLE IF NOT EXISTS '));
      expect(db.prepare('SELECT version FROM schema_version').all()).toEqual([{ version: 21 }]);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      const names = (db.prepare("SELECT name FROM pragma_table_info('sessions')").all() as Array<{ name: string }>).map(
        (c) => c.name,
      );
      expect(names).toHaveLength(45);
      for (const c of HERMES_USAGE_COLUMNS) expect(names).toContain(c);
    } finally {
      db.close();
    }
  });

  it('a custom endpoint: tokens per model call, cost_status unknown with estimated_cost_usd 0.0 — read as "no price"', async () => {
    const home = makeHome();
    const id = await sessionWithTurns(home, ['hello', 'hello again']);
    const db = new Database(join(home, 'state.db'), { readonly: true });
    const raw = db.prepare('SELECT * FROM sessions WHERE id = ?').get(id) as Record<string, unknown>;
    const perModel = db.prepare('SELECT * FROM session_model_usage WHERE session_id = ?').all(id);
    db.close();
    expect(perModel).toEqual([
      expect.objectContaining({
        model: 'fake-model',
        billing_provider: 'custom',
        api_call_count: 2,
        input_tokens: 2400,
        output_tokens: 68,
        estimated_cost_usd: 0,
        actual_cost_usd: 0,
        cost_status: 'unknown',
        cost_source: 'none',
      }),
    ]);
    expect(raw).toMatchObject({
      source: 'acp',
      model: 'fake-model',
      input_tokens: 2400,
      output_tokens: 68,
      api_call_count: 2,
      estimated_cost_usd: 0,
      actual_cost_usd: null,
      cost_status: 'unknown',
      cost_source: 'none',
      billing_provider: 'custom',
      billing_base_url: 'http://127.0.0.1:9/v1',
      // As a built 0.18.2 writes them: no cwd column for ACP rows, the route inside model_config, no pricing_version.
      cwd: null,
      pricing_version: null,
    });
    expect(JSON.parse(raw.model_config as string)).toEqual({
      cwd: expect.any(String),
      provider: 'custom',
      base_url: 'http://127.0.0.1:9/v1',
      api_mode: 'chat_completions',
    });
    const r = readHermesUsage(home, [id, 'not-a-hermes-session']);
    if (r.kind !== 'ok') throw new Error(r.kind);
    expect(r.schemaVersion).toBe(21);
    expect([...r.sessions.keys()]).toEqual([id]);
    const u = r.sessions.get(id)!;
    expect(u).toMatchObject({
      inputTokens: 2400,
      outputTokens: 68,
      apiCalls: 2,
      costStatus: 'unknown',
      costSource: 'none',
      cost: { status: 'unknown' },
    });
    expect(u.cost.usd).toBeUndefined();
    expect(formatCost(u.cost)).toBe('no price');
  });

  it('a priced route (HERMES_EMU_PRICE): cost_status estimated, the estimate summed per call', async () => {
    const home = makeHome();
    const id = await sessionWithTurns(home, ['hello', 'hello again'], { HERMES_EMU_PRICE: '3,15' });
    const r = readHermesUsage(home);
    if (r.kind !== 'ok') throw new Error(r.kind);
    const u = r.sessions.get(id)!;
    // 2 calls × (1200 × $3 + 34 × $15) / 1M
    expect(u.cost.status).toBe('estimated');
    expect(u.cost.usd).toBeCloseTo(0.00822, 10);
    expect(formatCost(u.cost)).toBe('~$0.0082');
    expect(u.costSource).toBe('provider_models_api');
  });

  it('a sessions table without a needed column is an "unknown shape" that names it — no guess', () => {
    const home = makeHome();
    const db = new Database(join(home, 'state.db'));
    db.exec(FIXTURE.replace('    cost_status TEXT,\n', ''));
    db.prepare('INSERT INTO schema_version (version) VALUES (22)').run();
    db.prepare("INSERT INTO sessions (id, source, started_at, estimated_cost_usd) VALUES ('s1', 'acp', 1, 0.0)").run();
    db.close();
    const r = readHermesUsage(home, ['s1']);
    expect(r.kind).toBe('unknown-shape');
    expect(r.kind === 'unknown-shape' && r.message).toMatch(
      /unknown shape of Hermes state\.db \(schema_version 22\): its sessions table has no cost_status; Talaria reads schema 21/,
    );
  });

  // Figures from a built Hermes 0.18.2 (compression.in_place off, one delegate_task): the continuation row's id is
  // YYYYMMDD_HHMMSS_hex, its parent ended 'compression'; the subagent row has source 'subagent'; a fork is its own.
  it('a conversation is its row plus its compression continuations and subagents; forks and asked-for children stay apart', () => {
    const home = makeHome();
    const db = new Database(join(home, 'state.db'));
    db.exec(FIXTURE);
    db.prepare('INSERT INTO schema_version (version) VALUES (21)').run();
    const row = db.prepare(
      'INSERT INTO sessions (id, source, started_at, parent_session_id, end_reason, input_tokens, output_tokens, api_call_count, estimated_cost_usd, cost_status, cost_source) VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)',
    );
    row.run('e367adca', 'acp', null, 'compression', 131710, 120, 6, 0.13, 'estimated', 'provider_models_api');
    row.run('20261206_070847_d6e55a', 'acp', 'e367adca', null, 4432, 19, 1, 0.0045, 'estimated', 'provider_models_api');
    row.run(
      '20261206_070941_e053b7',
      'subagent',
      '20261206_070847_d6e55a',
      'agent_close',
      3623,
      54,
      2,
      0.0,
      'unknown',
      'none',
    );
    row.run('fork-1', 'acp', '20261206_070847_d6e55a', null, 500, 5, 1, 0.0, 'unknown', 'none');
    row.run('other', 'acp', null, 'compression', 10, 1, 1, 0.0, 'unknown', 'none');
    row.run('other-cont', 'acp', 'other', null, 20, 2, 1, 0.0, 'unknown', 'none');
    db.close();
    const r = readHermesUsage(home, ['e367adca', 'other', 'other-cont']);
    if (r.kind !== 'ok') throw new Error(r.kind);
    const u = r.sessions.get('e367adca')!;
    expect([u.inputTokens, u.outputTokens, u.apiCalls]).toEqual([131710 + 4432 + 3623, 120 + 19 + 54, 9]);
    expect(u.lineage).toEqual({ continuations: 1, subagents: 1, unpricedParts: 1 });
    expect(u.cost.status).toBe('estimated');
    expect(u.cost.usd).toBeCloseTo(0.1345, 10);
    // `other-cont` is a session of its own here: counted once, under its own id.
    expect(r.sessions.get('other')).toMatchObject({ inputTokens: 10, cost: { status: 'unknown' } });
    expect(r.sessions.get('other')!.lineage).toBeUndefined();
    expect(r.sessions.get('other-cont')).toMatchObject({ inputTokens: 20 });
    // A listing of every row keeps rows apart.
    const all = readHermesUsage(home);
    expect(all.kind === 'ok' && all.sessions.get('e367adca')!.inputTokens).toBe(131710);
  });

  it('no sessions table, and no file at all, say so', () => {
    const home = makeHome();
    expect(readHermesUsage(home).kind).toBe('missing');
    new Database(join(home, 'state.db')).exec('CREATE TABLE other (x)').close();
    const r = readHermesUsage(home);
    expect(r.kind === 'unknown-shape' && r.message).toMatch(/no sessions table/);
  });

  it('a locked database answers "busy" instead of throwing or waiting long', async () => {
    const home = makeHome();
    await sessionWithTurns(home, ['hello']);
    const locker = new Database(join(home, 'state.db'));
    locker.pragma('locking_mode = EXCLUSIVE');
    locker.exec('BEGIN EXCLUSIVE');
    try {
      const t0 = Date.now();
      const r = readHermesUsage(home, undefined, { timeoutMs: 50 });
      expect(r.kind).toBe('busy');
      expect(r.kind === 'busy' && r.message).toMatch(/busy/);
      expect(Date.now() - t0).toBeLessThan(2000);
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    expect(readHermesUsage(home).kind).toBe('ok');
  });

  it('reading never changes the database file (bytes and mtime), also while Hermes holds it open', async () => {
    const home = makeHome();
    const id = await sessionWithTurns(home, ['hello']);
    const file = join(home, 'state.db');
    const before = { bytes: readFileSync(file), mtime: statSync(file).mtimeMs };
    for (let i = 0; i < 3; i++) expect(readHermesUsage(home, [id]).kind).toBe('ok');
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    expect(statSync(file).mtimeMs).toBe(before.mtime);
    // A live writer with un-checkpointed WAL frames: the reader sees them and writes nothing.
    const writer = new Database(file);
    writer.pragma('wal_autocheckpoint = 0');
    writer.prepare('UPDATE sessions SET input_tokens = 9999 WHERE id = ?').run(id);
    const wal = readFileSync(`${file}-wal`);
    const r = readHermesUsage(home, [id]);
    expect(r.kind === 'ok' && r.sessions.get(id)!.inputTokens).toBe(9999);
    expect(readFileSync(`${file}-wal`).equals(wal)).toBe(true);
    expect(readFileSync(file).equals(before.bytes)).toBe(true);
    writer.close();
  });

  it('a copy of the db opened elsewhere gives the same figures (no state kept between reads)', async () => {
    const home = makeHome();
    const id = await sessionWithTurns(home, ['hello']);
    const other = makeHome();
    copyFileSync(join(home, 'state.db'), join(other, 'state.db'));
    const a = readHermesUsage(home, [id]);
    const b = readHermesUsage(other, [id]);
    expect(a.kind === 'ok' && b.kind === 'ok' && a.sessions.get(id)).toEqual(b.kind === 'ok' && b.sessions.get(id));
  });
});

describe('cost', () => {
  it("Hermes' cost columns as a Cost: unknown price is never $0", () => {
    expect(hermesCost({ cost_status: 'unknown', estimated_cost_usd: 0, actual_cost_usd: null })).toEqual({
      status: 'unknown',
    });
    expect(hermesCost({ cost_status: null, estimated_cost_usd: 0, actual_cost_usd: null })).toEqual({
      status: 'unknown',
    });
    expect(hermesCost({ cost_status: 'future-status', estimated_cost_usd: 1, actual_cost_usd: null })).toEqual({
      status: 'unknown',
    });
    expect(hermesCost({ cost_status: 'estimated', estimated_cost_usd: 0.5, actual_cost_usd: null })).toEqual({
      usd: 0.5,
      status: 'estimated',
    });
    expect(hermesCost({ cost_status: 'actual', estimated_cost_usd: 0.5, actual_cost_usd: 0.42 })).toEqual({
      usd: 0.42,
      status: 'known',
    });
    expect(hermesCost({ cost_status: 'included', estimated_cost_usd: 0, actual_cost_usd: null })).toEqual({
      usd: 0,
      status: 'known',
    });
  });

  it('formats and totals', () => {
    expect(formatCost({ status: 'unknown' })).toBe('no price');
    expect(formatCost({ usd: 0, status: 'unknown' })).toBe('no price');
    expect(formatCost({ usd: 1.5, status: 'known' })).toBe('$1.50');
    expect(formatCost({ usd: 0, status: 'known' })).toBe('$0.00');
    expect(formatCostTotal(addCosts([]))).toBe('no price');
    expect(formatCostTotal(addCosts([{ status: 'unknown' }, { status: 'unknown' }]))).toBe('no price');
    expect(
      formatCostTotal(
        addCosts([
          { usd: 1, status: 'known' },
          { usd: 0.25, status: 'estimated' },
        ]),
      ),
    ).toBe('~$1.25');
    expect(formatCostTotal(addCosts([{ usd: 1, status: 'known' }, { status: 'unknown' }]))).toBe(
      '$1.00 + 1 without price',
    );
  });
});
