/** The closing line of `talaria run` on stderr, shared by the local run and the run on a server. */
import type { TurnResult } from '../../session/turn.js';
import { EXIT } from '../exit-codes.js';
import { formatAgentFailure, type FailureDetails } from '../failure.js';
import type { Style } from '../render/style.js';

export function noteOutcome(r: TurnResult, code: number, note: (text: string) => void, errStyle: Style): void {
  if (r.error) note(errStyle.red(`talaria run: ${describeFailure(r)}`));
  else if (r.stopReason === 'cancelled') note(errStyle.yellow('talaria run: cancelled'));
  else if (r.stopReason === 'refusal') note(errStyle.yellow('talaria run: the agent refused'));
  else if (r.stopReason === 'permission_denied')
    note(errStyle.yellow('talaria run: the agent stopped because a permission was denied'));
  else if (code === EXIT.LIMIT) note(errStyle.yellow(`talaria run: the agent stopped at a limit (${r.stopReason})`));
}

/** The error plus, for a dead agent, how it died and its last stderr lines. */
function describeFailure(r: TurnResult): string {
  const e = r.error!;
  return formatAgentFailure(`${e.code}: ${e.message}`, (e.data ?? {}) as FailureDetails);
}
