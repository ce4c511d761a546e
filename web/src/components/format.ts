export function ago(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return 'just now';
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  return new Date(ms).toLocaleDateString();
}

export function tokens(n: number | undefined): string {
  if (n === undefined) return '–';
  if (n < 1000) return String(n);
  if (n < 1_000_000) return `${(n / 1000).toFixed(n < 10_000 ? 1 : 0)}k`;
  return `${(n / 1_000_000).toFixed(1)}M`;
}

/** "$0.0123", "~$0.0123" (an estimate) or "no price" — never $0 for a price nobody knows. */
export function formatCost(cost: { usd?: number | undefined; status: 'known' | 'estimated' | 'unknown' } | undefined): string {
  if (!cost || cost.status === 'unknown' || cost.usd === undefined) return 'no price';
  const digits = cost.usd !== 0 && Math.abs(cost.usd) < 0.01 ? 4 : 2;
  return `${cost.status === 'estimated' ? '~' : ''}$${cost.usd.toFixed(digits)}`;
}

/** A total over sessions: the priced part, and how many had no price. */
export function formatCostTotal(cost: { usd?: number | undefined; status: 'known' | 'estimated' | 'unknown'; unpriced: number }): string {
  if (cost.status === 'unknown') return 'no price';
  return cost.unpriced > 0 ? `${formatCost(cost)} + ${cost.unpriced} without price` : formatCost(cost);
}
