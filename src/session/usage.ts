/**
 * Token usage per turn, whatever the agent reports. ACP's (unstable) `PromptResponse.usage`
 * is meant per turn, but some agents report totals for their agent instance: Hermes sends
 * CUMULATIVE counters, resets them on set_model and on restart, omits them on errors and
 * slash commands, and answers a cancelled turn with all zeros (specs/hermes-acp.md).
 */

export type TurnUsage = {
  inputTokens?: number;
  outputTokens?: number;
  totalTokens?: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
  cachedWriteTokens?: number;
};

export type UsageMode = 'per-turn' | 'cumulative';

export const USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'totalTokens',
  'thoughtTokens',
  'cachedReadTokens',
  'cachedWriteTokens',
] as const satisfies readonly (keyof TurnUsage)[];

const isCount = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The known counters of a reported usage object; undefined when there are none. */
export function parseUsage(reported: unknown): TurnUsage | undefined {
  if (typeof reported !== 'object' || reported === null) return undefined;
  const src = reported as Record<string, unknown>;
  const out: TurnUsage = {};
  let any = false;
  for (const f of USAGE_FIELDS) {
    const v = src[f];
    if (isCount(v)) {
      out[f] = v;
      any = true;
    }
  }
  return any ? out : undefined;
}

/**
 * Turns reported usage into per-turn figures.
 *
 * Cumulative mode rules:
 * - per-turn = current − baseline, field by field (a field never seen before counts from 0);
 * - no usage → undefined, baseline unchanged (errors, slash commands);
 * - every reported field 0 → undefined, baseline unchanged. On a cumulative agent a real turn
 *   never totals zero; Hermes sends zeros for a cancelled turn while its counters keep going
 *   (the next real report continues from the old totals). Should the agent really have reset,
 *   the next report is lower than the baseline and the rule below catches it;
 * - any field lower than the baseline → the agent reset its counters (restart, set_model the
 *   caller did not report): the reported figures ARE the turn's, and they become the baseline.
 * Call reset() after set_model or a process restart so the next report is taken whole.
 * A reset that goes unreported and whose first report exceeds the old totals cannot be seen.
 */
export class UsageTracker {
  private base: TurnUsage = {};

  constructor(readonly mode: UsageMode) {}

  turn(reported: unknown): TurnUsage | undefined {
    const now = parseUsage(reported);
    if (this.mode === 'per-turn' || now === undefined) return now;
    if (USAGE_FIELDS.every((f) => (now[f] ?? 0) === 0)) return undefined;

    const wentDown = USAGE_FIELDS.some((f) => {
      const b = this.base[f];
      const n = now[f];
      return b !== undefined && n !== undefined && n < b;
    });
    if (wentDown) {
      this.base = { ...now };
      return { ...now };
    }
    const delta: TurnUsage = {};
    for (const f of USAGE_FIELDS) {
      const n = now[f];
      if (n !== undefined) delta[f] = n - (this.base[f] ?? 0);
    }
    // Fields the agent stopped sending keep their old baseline.
    this.base = { ...this.base, ...now };
    return delta;
  }

  /** The agent's counters restarted from zero (set_model, respawn, reload in a new process). */
  reset(): void {
    this.base = {};
  }

  /** The cumulative totals the next report is measured against (a copy). */
  get baseline(): TurnUsage {
    return { ...this.base };
  }
}

export interface ContextUsage {
  used: number;
  size: number;
  cost?: { amount: number; currency: string };
  /**
   * used / size clamped to [0, 1] for a meter; absent when size is 0. `used` may exceed
   * `size` (Hermes shrinks `size` after an overflow), which the raw numbers still show.
   */
  fraction?: number;
}

/** A `usage_update` (with or without its `sessionUpdate` tag) → context meter figures. */
export function contextFrom(usageUpdate: unknown): ContextUsage | undefined {
  if (typeof usageUpdate !== 'object' || usageUpdate === null) return undefined;
  const u = usageUpdate as Record<string, unknown>;
  const used = u['used'];
  const size = u['size'];
  if (!isCount(used) || !isCount(size)) return undefined;
  const out: ContextUsage = { used, size };
  const cost = u['cost'];
  if (typeof cost === 'object' && cost !== null) {
    const c = cost as Record<string, unknown>;
    const amount = c['amount'];
    const currency = c['currency'];
    if (typeof amount === 'number' && Number.isFinite(amount) && typeof currency === 'string') {
      out.cost = { amount, currency };
    }
  }
  if (size > 0) out.fraction = Math.min(1, used / size);
  return out;
}
