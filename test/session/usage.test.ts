import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UsageTracker, contextFrom, parseUsage } from '../../src/session/usage.js';
import type { WireLogLine } from '../../src/protocol/types.js';

function fixture(name: string): WireLogLine[] {
  const path = fileURLToPath(new URL(`../fixtures/hermes-0.18.2/${name}`, import.meta.url));
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WireLogLine);
}

/** In wire order: each prompt response's `usage` (possibly undefined) and the calls between. */
function promptUsages(lines: WireLogLine[]): { method: string; usage?: unknown; stopReason?: unknown }[] {
  const methods = new Map<unknown, string>();
  const out: { method: string; usage?: unknown; stopReason?: unknown }[] = [];
  for (const { dir, msg } of lines) {
    if (dir === 'client->agent' && msg.method && msg.id !== undefined) methods.set(msg.id, msg.method);
    if (dir === 'agent->client' && msg.method === undefined && 'result' in msg) {
      const method = methods.get(msg.id) ?? '?';
      const result = msg.result as Record<string, unknown> | null;
      out.push({ method, usage: result?.['usage'], stopReason: result?.['stopReason'] });
    }
  }
  return out;
}

function usageUpdates(lines: WireLogLine[]): unknown[] {
  return lines
    .filter((l) => l.msg.method === 'session/update')
    .map((l) => (l.msg.params as { update: Record<string, unknown> }).update)
    .filter((u) => u['sessionUpdate'] === 'usage_update');
}

describe('parseUsage', () => {
  it.each([
    [undefined, undefined],
    [null, undefined],
    ['12', undefined],
    [{}, undefined],
    [{ totalTokens: 'x', inputTokens: -1, outputTokens: NaN }, undefined],
    [{ totalTokens: 10, thoughtTokens: null, _meta: {} }, { totalTokens: 10 }],
    [
      {
        inputTokens: 1,
        outputTokens: 2,
        totalTokens: 3,
        thoughtTokens: 4,
        cachedReadTokens: 5,
        cachedWriteTokens: 6,
        other: 7,
      },
      { inputTokens: 1, outputTokens: 2, totalTokens: 3, thoughtTokens: 4, cachedReadTokens: 5, cachedWriteTokens: 6 },
    ],
  ])('%j → %j', (input, expected) => {
    expect(parseUsage(input)).toEqual(expected);
  });
});

describe('UsageTracker, cumulative (Hermes)', () => {
  it('turns the real tools.ndjson totals 4936 → 7404 → 9872 → 12340 → 13574 into per-turn figures', () => {
    const responses = promptUsages(fixture('tools.ndjson')).filter((r) => r.method === 'session/prompt');
    expect(responses.map((r) => (r.usage as { totalTokens: number }).totalTokens)).toEqual([
      4936, 7404, 9872, 12340, 13574,
    ]);
    const t = new UsageTracker('cumulative');
    const turns = responses.map((r) => t.turn(r.usage));
    expect(turns).toEqual([
      { inputTokens: 4800, outputTokens: 136, totalTokens: 4936, thoughtTokens: 0, cachedReadTokens: 0 },
      { inputTokens: 2400, outputTokens: 68, totalTokens: 2468, thoughtTokens: 0, cachedReadTokens: 0 },
      { inputTokens: 2400, outputTokens: 68, totalTokens: 2468, thoughtTokens: 0, cachedReadTokens: 0 },
      { inputTokens: 2400, outputTokens: 68, totalTokens: 2468, thoughtTokens: 0, cachedReadTokens: 0 },
      { inputTokens: 1200, outputTokens: 34, totalTokens: 1234, thoughtTokens: 0, cachedReadTokens: 0 },
    ]);
    // Per-turn figures add back up to the agent's total.
    expect(turns.reduce((s, u) => s + (u?.totalTokens ?? 0), 0)).toBe(13574);
  });

  it('replays main.ndjson: slash command, set_model reset, cancelled zeros, error turns', () => {
    const t = new UsageTracker('cumulative');
    const got: { method: string; stop?: unknown; usage?: unknown }[] = [];
    for (const r of promptUsages(fixture('main.ndjson'))) {
      if (r.method === 'session/set_model') t.reset(); // as the session does after set_model
      if (r.method !== 'session/prompt') continue;
      got.push({ method: r.method, stop: r.stopReason, usage: t.turn(r.usage)?.totalTokens });
    }
    expect(got.map((g) => [g.stop, g.usage])).toEqual([
      ['end_turn', 1234], // hello
      ['end_turn', 4936], // 6170 − 1234
      ['end_turn', undefined], // /help: no usage
      ['cancelled', undefined], // all zeros: no report
      ['end_turn', undefined], // overflow: no usage
      ['end_turn', undefined], // 401: no usage
      ['refusal', undefined], // unknown session
    ]);
  });

  it('absent usage does not move the baseline', () => {
    const t = new UsageTracker('cumulative');
    expect(t.turn({ totalTokens: 100 })).toEqual({ totalTokens: 100 });
    expect(t.turn(undefined)).toBeUndefined();
    expect(t.turn({ stopReason: 'end_turn' })).toBeUndefined();
    expect(t.baseline).toEqual({ totalTokens: 100 });
    expect(t.turn({ totalTokens: 150 })).toEqual({ totalTokens: 50 });
  });

  it('a cancelled turn reporting all zeros is no report, and the count goes on', () => {
    const t = new UsageTracker('cumulative');
    t.turn({ inputTokens: 1200, outputTokens: 34, totalTokens: 1234 });
    expect(
      t.turn({ inputTokens: 0, outputTokens: 0, totalTokens: 0, thoughtTokens: 0, cachedReadTokens: 0 }),
    ).toBeUndefined();
    expect(t.baseline).toEqual({ inputTokens: 1200, outputTokens: 34, totalTokens: 1234 });
    expect(t.turn({ inputTokens: 2400, outputTokens: 68, totalTokens: 2468 })).toEqual({
      inputTokens: 1200,
      outputTokens: 34,
      totalTokens: 1234,
    });
  });

  it('zeros that really were a reset are caught by the next, lower report', () => {
    const t = new UsageTracker('cumulative');
    t.turn({ totalTokens: 5000, inputTokens: 4800 });
    expect(t.turn({ totalTokens: 0, inputTokens: 0 })).toBeUndefined();
    expect(t.turn({ totalTokens: 300, inputTokens: 250 })).toEqual({ totalTokens: 300, inputTokens: 250 });
    expect(t.turn({ totalTokens: 400, inputTokens: 320 })).toEqual({ totalTokens: 100, inputTokens: 70 });
  });

  it('a counter going down means the agent reset: the report is the turn, then rebase', () => {
    const t = new UsageTracker('cumulative');
    t.turn({ inputTokens: 9600, outputTokens: 272, totalTokens: 9872 });
    // Restarted agent: only outputTokens would not tell, but any field going down does.
    expect(t.turn({ inputTokens: 1200, outputTokens: 300, totalTokens: 1500 })).toEqual({
      inputTokens: 1200,
      outputTokens: 300,
      totalTokens: 1500,
    });
    expect(t.turn({ inputTokens: 2400, outputTokens: 334, totalTokens: 2734 })).toEqual({
      inputTokens: 1200,
      outputTokens: 34,
      totalTokens: 1234,
    });
  });

  it('reset() makes the next report count whole', () => {
    const t = new UsageTracker('cumulative');
    t.turn({ totalTokens: 1000 });
    t.reset();
    expect(t.baseline).toEqual({});
    // Higher than the old total, so without reset() this would read as a 500-token turn.
    expect(t.turn({ totalTokens: 1500 })).toEqual({ totalTokens: 1500 });
  });

  it('fields appearing late count from zero; fields dropped keep their baseline', () => {
    const t = new UsageTracker('cumulative');
    t.turn({ totalTokens: 100, cachedReadTokens: 40 });
    expect(t.turn({ totalTokens: 150, cachedWriteTokens: 7 })).toEqual({ totalTokens: 50, cachedWriteTokens: 7 });
    expect(t.turn({ totalTokens: 200, cachedReadTokens: 60, cachedWriteTokens: 9 })).toEqual({
      totalTokens: 50,
      cachedReadTokens: 20,
      cachedWriteTokens: 2,
    });
  });
});

describe('UsageTracker, per-turn', () => {
  it('passes reports through, zeros included, and never subtracts', () => {
    const t = new UsageTracker('per-turn');
    expect(t.turn({ totalTokens: 100, inputTokens: 90 })).toEqual({ totalTokens: 100, inputTokens: 90 });
    expect(t.turn({ totalTokens: 40 })).toEqual({ totalTokens: 40 });
    expect(t.turn({ totalTokens: 0 })).toEqual({ totalTokens: 0 });
    expect(t.turn(undefined)).toBeUndefined();
  });
});

describe('contextFrom', () => {
  it('reads every usage_update of main.ndjson, including the shrunken window after overflow', () => {
    const meters = usageUpdates(fixture('main.ndjson')).map(contextFrom);
    expect(meters[0]).toEqual({ used: 8754, size: 131072, fraction: 8754 / 131072 });
    const overflow = meters.find((m) => m?.size === 8192);
    expect(overflow).toEqual({ used: 10861, size: 8192, fraction: 1 });
    expect(meters.every((m) => m !== undefined)).toBe(true);
  });

  it.each([
    [
      { used: 10, size: 100, cost: { amount: 0.25, currency: 'USD' } },
      { used: 10, size: 100, fraction: 0.1, cost: { amount: 0.25, currency: 'USD' } },
    ],
    [
      { used: 10, size: 100, cost: null },
      { used: 10, size: 100, fraction: 0.1 },
    ],
    [
      { used: 10, size: 100, cost: { amount: '1', currency: 'USD' } },
      { used: 10, size: 100, fraction: 0.1 },
    ],
    [
      { used: 0, size: 0 },
      { used: 0, size: 0 },
    ],
    [{ used: 5 }, undefined],
    [{ used: -1, size: 10 }, undefined],
    [null, undefined],
  ])('%j → %j', (input, expected) => {
    expect(contextFrom(input)).toEqual(expected);
  });
});
