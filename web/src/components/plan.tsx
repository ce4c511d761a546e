import { useState } from 'react';
import type { PlanItem } from '../state/entries.js';

const NARROW = '(max-width: 700px)';

/**
 * The agent's plan as a checklist, in the thread where its turn made it. It takes one line unless
 * opened: a done plan shuts ("Plan 3/3 ✓"), and on a phone it starts shut, its line naming the
 * step in progress. Once the person opens or shuts it, their choice holds.
 */
/** The person's open/shut choice per session's plan (the thread's rows remount as they scroll). */
const choices = new Map<string, boolean>();

export function PlanList({ plan, id }: { plan: PlanItem[]; id: string }) {
  const done = plan.filter((p) => p.status === 'completed').length;
  const allDone = done === plan.length;
  const current = plan.find((p) => p.status === 'in_progress');
  const [chosen, setChosenState] = useState<boolean | undefined>(() => choices.get(id));
  const setChosen = (open: boolean): void => {
    choices.set(id, open);
    setChosenState(open);
  };
  const narrow = typeof matchMedia === 'function' && matchMedia(NARROW).matches;
  const open = chosen ?? (!allDone && !narrow);
  return (
    <details
      className="plan"
      open={open}
      onToggle={(e) => {
        const now = e.currentTarget.open;
        if (now !== open) setChosen(now);
      }}
    >
      <summary>
        Plan{' '}
        <span className="muted small">
          {done}/{plan.length}
          <span className="sr-only"> done</span>
        </span>
        {allDone && (
          <span className="plan-done" aria-hidden="true">
            {' '}
            ✓
          </span>
        )}
        {!open && current && <span className="plan-current small"> · {current.content}</span>}
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
