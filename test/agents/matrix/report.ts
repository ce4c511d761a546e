/** The matrix as a text table: two rows per agent (by id, by command), one column per scenario, then timings and details. */
import { SCENARIOS, type AgentResult, type CellStatus } from './types.js';

const MARK: Record<CellStatus, string> = { works: 'works', quirk: 'quirk', broken: 'BROKEN', 'n/a': 'n/a' };

export function formatTable(results: AgentResult[]): string {
  const head = ['agent', 'by', 'quirks', ...SCENARIOS, 'init ms', '1st token ms', 'install'];
  const rows = results.map((r) => [
    `${r.agent}@${r.version}`,
    r.by,
    r.quirks ? `${r.quirks.set}${r.quirks.restartedFrom ? '*' : ''}` : '-',
    ...SCENARIOS.map((s) => (r.cells[s] ? MARK[r.cells[s]!.status] : '-')),
    r.timeToInitializeMs?.toString() ?? '-',
    r.timeToFirstTokenMs?.toString() ?? '-',
    'error' in r.install
      ? 'FAILED'
      : `${(r.install.ms / 1000).toFixed(1)} s ${(r.install.bytes / 1e6).toFixed(0)} MB${r.install.cached ? ' (cached)' : ''}`,
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => '| ' + cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ') + ' |';
  const out = [line(head), '|' + widths.map((w) => '-'.repeat(w + 2)).join('|') + '|', ...rows.map(line), ''];
  out.push(
    'quirks: the set Talaria chose from what the agent said in initialize (* = restarted once with the capabilities it needs)',
    '',
  );
  for (const r of results) {
    out.push(
      `${r.agent} by ${r.by}:${r.quirks ? ` quirks ${r.quirks.set} — ${r.quirks.why}${r.quirks.restartedFrom ? ` (first started as ${r.quirks.restartedFrom})` : ''}` : ''}`,
    );
    if ('error' in r.install) out.push(`  install: ${r.install.error}`);
    for (const s of SCENARIOS) {
      const c = r.cells[s];
      if (c)
        out.push(
          `  ${s.padEnd(15)} ${MARK[c.status].padEnd(6)} ${c.detail}${c.quirks.length ? `  [quirks: ${c.quirks.join(', ')}]` : ''}`,
        );
    }
  }
  return out.join('\n');
}
