/** Small statistics and number formatting for the benchmark report. */

/** Linear-interpolated percentile (p in 0..100) of an unsorted list; NaN when empty. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values).sort();
  return percentileSorted(sorted, p);
}

/** Same on an already ascending-sorted array (sort once, read many percentiles). */
export function percentileSorted(sorted: ArrayLike<number>, p: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (n - 1);
  const lo = Math.floor(rank);
  const hi = Math.min(n - 1, lo + 1);
  const a = sorted[lo]!;
  const b = sorted[hi]!;
  return a + (b - a) * (rank - lo);
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}

/** p50 / p99 / max of a latency list in one sort. */
export function latencySummary(values: ArrayLike<number>): { p50: number; p99: number; max: number } {
  const sorted = Float64Array.from(values).sort();
  return {
    p50: percentileSorted(sorted, 50),
    p99: percentileSorted(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1]! : NaN,
  };
}

/** Median per key across samples; keys missing from some samples use the ones that have them. */
export function medianByKey(samples: { values: Record<string, number> }[]): Record<string, number> {
  const keys = new Set(samples.flatMap((s) => Object.keys(s.values)));
  const out: Record<string, number> = {};
  for (const k of keys) {
    const vs = samples.map((s) => s.values[k]).filter((v): v is number => typeof v === 'number' && Number.isFinite(v));
    if (vs.length) out[k] = median(vs);
  }
  return out;
}

/** Human formatting: thousands separators for big numbers, 3 significant-ish digits for small. */
export function formatNumber(v: number | null | undefined): string {
  if (v === null || v === undefined || Number.isNaN(v)) return '—';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  if (a === 0) return '0';
  return v.toPrecision(2);
}

export function formatRatio(v: number | null, kind: 'ratio' | 'delta' | null, unit = ''): string {
  if (v === null || Number.isNaN(v) || kind === null) return '—';
  if (kind === 'delta') return `${v >= 0 ? '+' : ''}${formatNumber(v)}${unit ? ' ' + unit : ''}`;
  return `${v.toFixed(2)}×`;
}
