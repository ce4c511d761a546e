/**
 * The model and mode a person chose stay chosen: a session's own choice is stored with it and
 * re-applied when it is reopened (a new process, another day); a workspace default (per agent)
 * is applied to its new sessions. What the agent no longer offers, or refuses, becomes a notice:
 * the session still opens.
 */
import type { AgentDefaults } from '../store/index.js';
import type { HarnessSession } from './types.js';

const KINDS = ['model', 'mode'] as const;

export async function applyChoices(
  hs: HarnessSession,
  choices: AgentDefaults,
  from: 'session' | 'workspace',
): Promise<void> {
  const whose = from === 'session' ? 'this session' : "this workspace's default";
  for (const kind of KINDS) {
    const id = kind === 'model' ? choices.modelId : choices.modeId;
    const sel = hs.session.catalog[kind];
    if (!id || !sel || sel.currentId === id) continue;
    if (!sel.options.some((o) => o.id === id || o.aliases?.includes(id))) {
      hs.session.notice(
        'warning',
        'choice_unavailable',
        `The ${kind} ${id} chosen for ${whose} is not offered by the agent any more; it uses ${sel.currentId ?? 'its default'}.`,
      );
      continue;
    }
    try {
      await (kind === 'model' ? hs.setModel(id) : hs.setMode(id));
    } catch (e) {
      hs.session.notice(
        'warning',
        'choice_not_restored',
        `The ${kind} ${id} chosen for ${whose} could not be set again: ${e instanceof Error ? e.message : String(e)}.`,
      );
    }
  }
}
