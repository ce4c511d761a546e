/**
 * Judging and printing: turn per-case medians into rows (value, baseline from the same run,
 * ratio, target, pass/fail), render the table, and write the JSON record under bench/results/.
 * A row without a value is never a pass: TODO stubs read "not yet measured".
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { formatNumber, formatRatio } from './stats.js';
import type { BenchCase, CaseResult, MetricSpec, ReportRow, RowStatus, Target } from './types.js';

export function describeTarget(t: Target, spec: MetricSpec): string {
  const b = spec.baseline?.case ?? '?';
  switch (t.kind) {
    case 'ratio-at-least':
      return `≥ ${t.min}× ${b}`;
    case 'ratio-at-most':
      return `≤ ${t.max}× ${b}`;
    case 'delta-below':
      return `< +${t.limit} ${spec.unit} over ${b}`;
    case 'below':
      return `< ${t.limit} ${spec.unit}`;
    case 'at-most':
      return `≤ ${t.max}${spec.unit === '×' ? '×' : ` ${spec.unit}`}`;
    case 'at-least':
      return `≥ ${t.min}${spec.unit === '×' ? '×' : ` ${spec.unit}`}`;
    case 'equals':
      return `= ${t.expected}`;
  }
}

function judge(t: Target, value: number, baseline: number | null): boolean | null {
  switch (t.kind) {
    case 'ratio-at-least':
      return baseline === null || baseline <= 0 ? null : value / baseline >= t.min;
    case 'ratio-at-most':
      return baseline === null || baseline <= 0 ? null : value / baseline <= t.max;
    case 'delta-below':
      return baseline === null ? null : value - baseline < t.limit;
    case 'below':
      return value < t.limit;
    case 'at-most':
      return value <= t.max;
    case 'at-least':
      return value >= t.min;
    case 'equals':
      return value === t.expected;
  }
}

export function buildRow(c: BenchCase, spec: MetricSpec, results: ReadonlyMap<string, CaseResult>): ReportRow {
  const r = results.get(c.name);
  const name = spec.label ?? `${c.name} ${spec.key}`;
  const target = spec.target ? describeTarget(spec.target, spec) : null;
  const ratioKind = spec.baseline ? (spec.compare ?? (spec.target?.kind === 'delta-below' ? 'delta' : 'ratio')) : null;
  const base = spec.baseline ? results.get(spec.baseline.case)?.medians[spec.baseline.key] : undefined;
  const baselineValue = base ?? null;
  const row: ReportRow = {
    name,
    value: null,
    unit: spec.unit,
    baseline: spec.baseline ? (spec.baseline.label ?? spec.baseline.case) : null,
    baselineValue,
    ratio: null,
    ratioKind,
    target,
    status: 'info',
  };
  const fail = (status: RowStatus, note: string): ReportRow => ({ ...row, status, note });
  if (!r) return fail('skipped', 'not run (filtered out)');
  if (r.error) return fail('error', r.error);
  if (r.notMeasured) return fail(r.notMeasured.reason, r.notMeasured.notMeasured);
  const value = r.medians[spec.key];
  if (value === undefined) return fail('error', `case produced no "${spec.key}"`);
  row.value = value;
  if (baselineValue !== null) row.ratio = ratioKind === 'delta' ? value - baselineValue : value / baselineValue;
  if (!spec.target) return row;
  const ok = judge(spec.target, value, baselineValue);
  if (ok === null)
    return { ...row, status: 'no baseline', note: `baseline ${spec.baseline?.case} not measured in this run` };
  return { ...row, status: ok ? 'pass' : 'fail' };
}

export function buildRows(cases: readonly BenchCase[], results: ReadonlyMap<string, CaseResult>): ReportRow[] {
  return cases.filter((c) => results.has(c.name)).flatMap((c) => c.metrics.map((m) => buildRow(c, m, results)));
}

/**
 * Rows that make `npm run bench` fail (exit 1): a missed target, a case that errored, and a
 * target that could not be judged (no value or no baseline) — a row without a value is never a
 * pass. Rows without a target only inform.
 */
export function missedTargets(rows: readonly ReportRow[]): ReportRow[] {
  return rows.filter((r) => r.status === 'error' || (r.target !== null && r.status !== 'pass'));
}

function valueText(r: ReportRow): string {
  if (r.value !== null) return formatNumber(r.value);
  if (r.status === 'todo') return 'not yet measured';
  if (r.status === 'skipped') return 'skipped';
  return r.status === 'error' ? 'error' : '—';
}

export function formatTable(rows: readonly ReportRow[]): string {
  const head = ['name', 'value', 'unit', 'baseline', 'ratio', 'target', 'result'];
  const body = rows.map((r) => [
    r.name,
    valueText(r),
    r.unit,
    r.baseline ? `${r.baseline} ${formatNumber(r.baselineValue)}` : '—',
    formatRatio(r.ratio, r.ratioKind, r.unit),
    r.target ?? '—',
    r.status === 'info' ? '' : r.status.toUpperCase(),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const numeric = new Set([1, 4]);
  const fmt = (cells: string[]): string =>
    cells
      .map((c, i) => (numeric.has(i) ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [fmt(head), widths.map((w) => '─'.repeat(w)).join('  '), ...body.map(fmt)].join('\n');
}

/** Notes worth reading under the table: case remarks and why rows have no value. */
export function formatNotes(results: readonly CaseResult[], rows: readonly ReportRow[]): string[] {
  const out: string[] = [];
  for (const r of results) for (const n of new Set(r.notes)) out.push(`${r.name}: ${n}`);
  const seen = new Set<string>();
  for (const row of rows) {
    if (!row.note || row.status === 'todo' || seen.has(row.note)) continue;
    seen.add(row.note);
    out.push(`${row.name}: ${row.note}`);
  }
  return out;
}

export interface BenchReport {
  startedAt: string;
  finishedAt: string;
  command: string;
  host: { node: string; platform: string; cpus: number; cpuModel: string; loadavg: number[] };
  options: unknown;
  cases: CaseResult[];
  rows: ReportRow[];
}

/** Write `<dir>/<timestamp>.json` and `<dir>/latest.json`; returns the timestamped path. */
export async function writeReport(report: BenchReport, dir: string): Promise<string> {
  await mkdir(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, '-');
  const text = JSON.stringify(report, null, 2) + '\n';
  const file = join(dir, `${stamp}.json`);
  await writeFile(file, text);
  await writeFile(join(dir, 'latest.json'), text);
  return file;
}
