import type { ToolView } from '../state/entries.js';
import type { Delegation } from '../../../src/providers/hermes/delegation.js';

/** A Hermes delegation (src/providers/hermes/delegation.ts) as a lane: what was sent, and that nothing more will come. */
export function SubagentLane({ tool, d }: { tool: ToolView; d: Delegation }) {
  const heading = d.dispatched ? 'Subagent running in the background' : tool.status === 'failed' ? 'Subagent not started' : 'Starting a subagent';
  const goals = d.goals.length > 0 ? d.goals : [tool.title.replace(/^delegate: /, '')];
  return (
    <details className="subagent-lane" open data-tool={tool.toolCallId} aria-label={`Subagent: ${goals.join('; ')}`}>
      <summary>
        <span className="subagent-icon" aria-hidden="true">
          ↳
        </span>
        <span className="subagent-heading">{heading}</span>
        {d.delegationId && <code className="subagent-id small">{d.delegationId}</code>}
      </summary>
      <ul className="subagent-goals">
        {goals.map((g, i) => (
          <li key={i}>{g}</li>
        ))}
      </ul>
      <p className="small muted subagent-note">
        Hermes does not send the subagent&apos;s progress over ACP, and its result does not come back to this session: Talaria cannot show more than this.
      </p>
    </details>
  );
}
