/**
 * Cost as people see it: a known figure, an estimate, or no price — never $0 for a price nobody
 * knows. Shared by the Hermes state.db reader, usage_update costs, the CLI and the web (a leaf:
 * it imports nothing, so the web bundles it alone).
 */

/**
 * Cost as far as it is known. `known`: the provider's own figure (or a route included in a
 * subscription, 0); `estimated`: Hermes' estimate from its price table; `unknown`: no price —
 * shown as "no price", never as $0 (a custom endpoint's row says estimated_cost_usd 0.0 with
 * cost_status 'unknown').
 */
export interface Cost {
  usd?: number;
  status: 'known' | 'estimated' | 'unknown';
}

/** "$0.0123", "~$0.0123" (estimated) or "no price" — never $0 for an unknown price. */
export function formatCost(cost: Cost | undefined): string {
  if (!cost || cost.status === 'unknown' || cost.usd === undefined) return 'no price';
  const digits = cost.usd !== 0 && Math.abs(cost.usd) < 0.01 ? 4 : 2;
  return `${cost.status === 'estimated' ? '~' : ''}$${cost.usd.toFixed(digits)}`;
}

/** A sum of costs: the priced part, and how many parts had no price (never folded in as $0). */
export interface CostTotal extends Cost {
  unpriced: number;
}

/** Adds costs: `usd` sums the priced ones; all unpriced (or none) is `unknown`; any estimate makes it `estimated`. */
export function addCosts(costs: readonly Cost[]): CostTotal {
  let usd = 0;
  let priced = 0;
  let unpriced = 0;
  let status: Cost['status'] = 'known';
  for (const c of costs) {
    if (c.status === 'unknown' || c.usd === undefined) {
      unpriced++;
      continue;
    }
    priced++;
    usd += c.usd;
    if (c.status === 'estimated') status = 'estimated';
  }
  return priced === 0 ? { status: 'unknown', unpriced } : { usd, status, unpriced };
}

/** A total for people: "~$1.20", "no price", or "~$1.20 + 2 without price". */
export function formatCostTotal(t: CostTotal): string {
  if (t.status === 'unknown') return 'no price';
  return t.unpriced > 0 ? `${formatCost(t)} + ${t.unpriced} without price` : formatCost(t);
}
