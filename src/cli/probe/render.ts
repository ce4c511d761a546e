/** The probe's human output: a table (check, result, evidence), the evidence lines, the wire findings. */
import type { Style } from '../render/style.js';
import { sanitize, truncate } from '../render/width.js';
import type { ProbeReport, ProbeStatus } from './types.js';

const LABEL: Record<ProbeStatus, string> = {
  works: 'works',
  supported: 'supported',
  quirk: 'quirk',
  broken: 'BROKEN',
  unsupported: 'unsupported',
  not_testable: 'not testable',
  skipped: 'skipped',
};

function paint(status: ProbeStatus, s: Style, text: string): string {
  if (status === 'works') return s.green(text);
  if (status === 'broken') return s.bold(s.red(text));
  if (status === 'quirk' || status === 'not_testable') return s.yellow(text);
  if (status === 'supported') return s.cyan(text);
  return s.gray(text);
}

/** Greedy word wrap of plain text to `width` columns. */
function wrap(text: string, width: number): string[] {
  const out: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      out.push(line);
      line = '';
    }
    line = line ? `${line} ${word}` : word;
    while (line.length > width) {
      out.push(line.slice(0, width));
      line = line.slice(width);
    }
  }
  if (line || out.length === 0) out.push(line);
  return out;
}

/** "Hermes Agent 0.18–0.20 — the agent named itself "hermes-agent" 0.18.2 (versions below 0.21.0)". */
export function quirkLine(q: { label: string; why: string; restartedFrom?: string }): string {
  const restarted = q.restartedFrom
    ? `; restarted once: it was first started with the ${q.restartedFrom} capabilities`
    : '';
  return sanitize(`${q.label} — ${q.why}${restarted}`);
}

export function renderTable(report: ProbeReport, style: Style, columns = 120): string {
  const out: string[] = [];
  const a = report.agent;
  const who = a.name ? `${a.title ?? a.name}${a.version ? ` ${a.version}` : ''}` : a.label;
  out.push(style.bold(`Talaria probe — ${who}`));
  out.push(style.dim(`command: ${[a.command, ...a.args].join(' ')}`));
  if (a.quirks) out.push(style.dim(`quirks: ${quirkLine(a.quirks)}`));
  out.push(
    style.dim(`workspace: ${report.cwd} · prompts: ${report.steering} · ${(report.durationMs / 1000).toFixed(1)} s`),
  );
  out.push('');
  const c1 = Math.max(5, ...report.checks.map((r) => r.title.length));
  const c2 = Math.max(6, ...Object.values(LABEL).map((l) => l.length));
  const c3 = Math.max(30, columns - c1 - c2 - 4);
  out.push(style.bold(`${'check'.padEnd(c1)}  ${'result'.padEnd(c2)}  evidence`));
  out.push(style.dim(`${'─'.repeat(c1)}  ${'─'.repeat(c2)}  ${'─'.repeat(Math.min(c3, 40))}`));
  for (const r of report.checks) {
    const lines = wrap(sanitize(r.summary), c3);
    out.push(`${r.title.padEnd(c1)}  ${paint(r.status, style, LABEL[r.status].padEnd(c2))}  ${lines[0]}`);
    for (const l of lines.slice(1)) out.push(`${' '.repeat(c1 + c2 + 4)}${l}`);
  }
  out.push('');
  const counts = (Object.keys(LABEL) as ProbeStatus[])
    .filter((k) => report.counts[k] > 0)
    .map((k) => `${report.counts[k]} ${LABEL[k]}`);
  out.push(counts.join(' · '));
  if (report.notReady) out.push('', style.red(`Not ready: ${report.notReady}`));
  if (report.interrupted) out.push('', style.yellow('Interrupted: the remaining checks were skipped.'));

  const evidence = report.checks.filter((r) => r.evidence.length > 0);
  if (evidence.length) {
    out.push('', style.bold('Evidence'));
    for (const r of evidence) {
      out.push(`${r.title}:`);
      const shown = r.evidence.slice(0, r.id === 'wire' ? 40 : 8);
      for (const e of shown) out.push(style.dim(`  ${truncate(sanitize(e.replace(/\s*\n\s*/g, ' ')), columns - 2)}`));
      if (r.evidence.length > shown.length)
        out.push(style.dim(`  … ${r.evidence.length - shown.length} more (see --json)`));
    }
  }
  return `${out.join('\n')}\n`;
}
