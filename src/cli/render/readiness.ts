/** Agent readiness as text: a status word, and a block with every gap and its fix (doctor, agents). */
import type { QuirkSummary } from '../../providers/quirks/types.js';
import type { Readiness } from '../../providers/types.js';
import type { Style } from './style.js';
import { sanitize } from './width.js';

/** ready · not installed · not configured · not ready (the first blocking gap). */
export function statusWord(r: Readiness): string {
  if (r.ready) return 'ready';
  if (!r.found) return r.gaps[0]?.code === 'not_executable' ? 'not executable' : 'not installed';
  const code = r.gaps[0]?.code;
  if (code === 'unconfigured' || code === 'auth') return 'needs setup';
  if (code === 'profile_missing') return 'no such profile';
  if (code === 'config') return 'config problem';
  return 'not ready';
}

export function statusMark(r: Readiness, style: Style): string {
  return r.ready ? style.green('✓') : r.found ? style.yellow('!') : style.red('✗');
}

/** The QUIRKS column of `talaria agents`: the expected set, or when it will be known. */
export function quirkCell(q: QuirkSummary | undefined): string {
  if (!q || q.basis === 'none') return 'at initialize';
  return `${q.set} (${q.basis === 'provider' ? 'by id' : q.basis === 'command' ? 'by command' : q.basis})`;
}

/** The agent's line plus, indented, which quirk set applies and why, then each gap and warning with its fix. */
export function readinessBlock(
  r: Readiness & { source?: string; quirks?: QuirkSummary },
  style: Style,
  o: { chosen?: boolean } = {},
): string[] {
  const facts = [
    statusWord(r),
    r.version ? `v${r.version.replace(/^v/, '')}` : '',
    r.command
      ? `${r.command.via === 'PATH' || r.command.via === 'bundled' ? r.command.via : 'found'}: ${r.command.command}`
      : '',
  ]
    .filter(Boolean)
    .join(' · ');
  const head = `  ${statusMark(r, style)} ${style.bold(r.providerId.padEnd(12))} ${r.label} — ${facts}${o.chosen ? style.cyan('  ← chosen') : ''}`;
  const lines = [head];
  // Which fixes apply matters only for an agent that can run: none for one that is not installed.
  if (r.quirks && r.found)
    lines.push(
      `      ${style.dim(`quirks: ${sanitize(r.quirks.basis === 'none' ? `chosen when it answers initialize (by the name it gives; generic if unknown)` : `${r.quirks.label} — ${r.quirks.why}`)}`)}`,
    );
  for (const g of r.gaps) {
    lines.push(`      ${sanitize(g.message)}`);
    lines.push(`      ${style.cyan('fix:')} ${sanitize(g.fix)}`);
  }
  for (const w of r.warnings) {
    lines.push(`      ${style.yellow('warning:')} ${sanitize(w.message)}`);
    lines.push(`      ${style.cyan('fix:')} ${sanitize(w.fix)}`);
  }
  return lines;
}
