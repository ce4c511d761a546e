/** The plan as a checklist and the one-line summary of a finished turn. */
import type { EventOf } from '../../session/events.js';
import type { PlanEntry } from '../../thread/types.js';
import { formatAgentFailure, type FailureDetails } from '../failure.js';
import { usageText } from './meter.js';
import type { Style } from './style.js';
import { sanitize } from './width.js';

const MAX_PLAN_LINES = 10;

export function planLines(plan: PlanEntry[], s: Style): string[] {
  const lines = [s.bold('Plan')];
  for (const p of plan.slice(0, MAX_PLAN_LINES)) {
    const mark = p.status === 'completed' ? s.green('☑') : p.status === 'in_progress' ? s.yellow('◐') : '☐';
    const text = sanitize(String(p.content ?? '')).replace(/\s*\n\s*/g, ' ');
    lines.push(`  ${mark} ${p.status === 'completed' ? s.dim(text) : text}`);
  }
  if (plan.length > MAX_PLAN_LINES) lines.push(s.dim(`  … ${plan.length - MAX_PLAN_LINES} more steps`));
  return lines;
}

/** "✓ done · 1.5s · in 1.2k out 34 tokens", or why the turn stopped (an error with the agent's last stderr lines). */
export function turnSummary(ev: EventOf<'turn.ended'>, s: Style): string[] {
  const tail = [`${(ev.durationMs / 1000).toFixed(1)}s`, usageText(ev.usage)].filter(Boolean).join(' · ');
  switch (ev.stopReason) {
    case 'end_turn':
      return [s.dim(`✓ done · ${tail}`)];
    case 'cancelled':
      return [s.yellow(`⊘ cancelled · ${tail}`)];
    case 'permission_denied':
      return [s.yellow(`⊘ the agent stopped: a permission was denied · ${tail}`)];
    case 'refusal':
      return [s.yellow(`⊘ the agent refused · ${tail}`)];
    case 'error': {
      const e = ev.error;
      const text = e
        ? formatAgentFailure(`${e.code}: ${e.message}`, (e.data ?? {}) as FailureDetails)
        : 'the turn failed';
      const [head, ...rest] = sanitize(text).split('\n');
      return [s.red(`✗ ${head}`), ...rest.map((l) => s.dim(l))];
    }
    default:
      return [s.yellow(`■ stopped: ${ev.stopReason} · ${tail}`)];
  }
}
