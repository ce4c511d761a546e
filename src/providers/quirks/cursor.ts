/** The Cursor ACP adapter (`cursor-agent-acp`, which drives the `cursor-agent` CLI). */
import type { SessionHooks, TurnClassification, TurnSummary } from '../../session/hooks.js';
import type { QuirkSet } from './types.js';

/** The adapter answers a prompt `end_turn` with the text "cursor-agent CLI is not authenticated". */
export function cursorClassifyTurn(t: TurnSummary): TurnClassification | undefined {
  if (t.cancelled || !/not authenticated|not installed|cursor-agent\b.*(?:not found|missing)/i.test(t.text))
    return undefined;
  // It lists no auth method in initialize; its text names the command ("run: `cursor-agent login`").
  const cmd = /run:?\s*`([^`]+)`/i.exec(t.text)?.[1];
  const authMethods = cmd
    ? [{ id: cmd.replace(/\s+/g, '-'), name: cmd, type: 'terminal', _meta: { source: 'text', command: cmd } }]
    : [];
  return { code: 'auth_required', message: t.text.trim().slice(0, 500), data: { source: 'text', authMethods } };
}

export function cursorHooks(): SessionHooks {
  return { classifyTurn: cursorClassifyTurn };
}

export const cursorQuirks: QuirkSet = {
  id: 'cursor-acp',
  label: 'Cursor ACP adapter',
  names: /^cursor-agent-acp$/i,
  hintName: 'cursor-agent-acp',
  commandHints: [/^cursor-agent-acp$/, /[\\/]cursor-agent-acp[\\/]/],
  hooks: () => cursorHooks(),
};
