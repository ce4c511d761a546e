import { describe, expect, it } from 'vitest';
import { costFromContext, groupUsage, tokensFromTurns, type SessionUsage } from '../../src/harness/usage.js';

const s = (o: Partial<SessionUsage>): SessionUsage => ({
  sessionId: 'x',
  provider: 'hermes',
  createdAt: 0,
  day: '2026-12-06',
  tokens: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 3 },
  cost: { status: 'unknown' },
  from: 'talaria',
  ...o,
});

describe('usage totals', () => {
  it('ACP turn counters become tokens; totalTokens wins when the agent sent it', () => {
    expect(tokensFromTurns({ inputTokens: 10, outputTokens: 5, thoughtTokens: 2, cachedReadTokens: 7 })).toEqual({
      input: 10,
      output: 5,
      cacheRead: 7,
      cacheWrite: 0,
      reasoning: 2,
      total: 17,
    });
    expect(tokensFromTurns({ inputTokens: 10, outputTokens: 5, totalTokens: 40 }).total).toBe(40);
    expect(tokensFromTurns({}).total).toBe(0);
  });

  it('the cost an agent sent in usage_update: USD is known, anything else or nothing is no price', () => {
    expect(costFromContext({ used: 1, size: 2, cost: { amount: 0.5, currency: 'USD' } })).toEqual({
      usd: 0.5,
      status: 'known',
    });
    expect(costFromContext({ used: 1, size: 2, cost: { amount: 0.5, currency: 'EUR' } })).toEqual({
      status: 'unknown',
    });
    expect(costFromContext({ used: 1, size: 2 })).toEqual({ status: 'unknown' });
    expect(costFromContext(undefined)).toEqual({ status: 'unknown' });
  });

  it('groups by agent (with profile), workspace and day; unpriced sessions are counted, not added as $0', () => {
    const list = [
      s({ sessionId: 'a', cost: { usd: 0.25, status: 'estimated' }, workspace: '/w1' }),
      s({ sessionId: 'b', profile: 'coder', workspace: '/w1', day: '2026-12-05' }),
      s({ sessionId: 'c', provider: 'claude', cost: { usd: 1, status: 'known' }, workspace: '/w2' }),
      s({ sessionId: 'd', profile: 'default' }),
    ];
    expect(groupUsage(list, 'agent').map((g) => [g.key, g.sessions, g.tokens.total, g.cost])).toEqual([
      ['claude', 1, 3, { usd: 1, status: 'known', unpriced: 0 }],
      ['hermes', 2, 6, { usd: 0.25, status: 'estimated', unpriced: 1 }],
      ['hermes (coder)', 1, 3, { status: 'unknown', unpriced: 1 }],
    ]);
    expect(groupUsage(list, 'workspace').map((g) => [g.key, g.sessions])).toEqual([
      ['(none)', 1],
      ['/w1', 2],
      ['/w2', 1],
    ]);
    expect(groupUsage(list, 'day').map((g) => [g.key, g.sessions])).toEqual([
      ['2026-12-05', 1],
      ['2026-12-06', 3],
    ]);
  });
});
