import type { PlanItem } from '../state/entries.js';

/** The agent's live plan as a checklist. */
export function PlanList({ plan }: { plan: PlanItem[] }) {
  const done = plan.filter((p) => p.status === 'completed').length;
  return (
    <details className="plan" open>
      <summary>
        Plan <span className="muted small">{done}/{plan.length} done</span>
      </summary>
      <ul>
        {plan.map((p, i) => (
          <li key={i} className={`plan-${p.status}`}>
            <input type="checkbox" readOnly checked={p.status === 'completed'} aria-label={`${p.content}: ${p.status.replace('_', ' ')}`} tabIndex={-1} />
            <span>{p.content}</span>
            {p.status === 'in_progress' && <span className="muted small"> · in progress</span>}
          </li>
        ))}
      </ul>
    </details>
  );
}
