/** GitHub Copilot CLI (`copilot --acp`). */
import type { SessionHooks, TurnClassification, TurnSummary } from '../../session/hooks.js';
import { agentError } from '../../session/errors.js';
import type { QuirkSet } from './types.js';

/** copilot streams a model error as the answer text ("Error: 400 …") and ends the turn `end_turn`. */
export function copilotClassifyTurn(t: TurnSummary): TurnClassification | undefined {
  const m = /^\s*(?:Error|API error):?\s*(\d{3})\b[\s\S]*/i.exec(t.text);
  if (!m || t.cancelled) return undefined;
  return agentError(m[0].trim().slice(0, 2000), { source: 'text' });
}

export function copilotHooks(): SessionHooks {
  return { classifyTurn: copilotClassifyTurn };
}

export const copilotQuirks: QuirkSet = {
  id: 'copilot',
  label: 'GitHub Copilot CLI',
  names: /^copilot$/i,
  hintName: 'Copilot',
  commandHints: [/^copilot$/, /[\\/]@github[\\/]copilot[\\/]/],
  hooks: () => copilotHooks(),
};
