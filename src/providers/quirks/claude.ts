/**
 * Both Claude Code ACP adapters (claude-agent-acp and the older claude-code-acp), as the offline
 * matrix proved them (test/agents/).
 */
import type { SessionHooks } from '../../session/hooks.js';
import type { QuirkSet } from './types.js';

/**
 * The adapters leave their prompt stream one message behind after a failed or cancelled turn:
 * reopen the session before the next prompt.
 */
export const CLAUDE_HOOKS: Readonly<SessionHooks> = { reopenAfterFailedTurn: true };

/** Without the `terminal-auth` client capability the adapters list no auth method at all. */
export const CLAUDE_CLIENT_META: Readonly<Record<string, unknown>> = { 'terminal-auth': true };

export const claudeQuirks: QuirkSet = {
  id: 'claude-acp',
  label: 'Claude Code ACP adapter',
  names: /^@zed-industries\/claude-(agent|code)-acp$/i,
  hintName: '@zed-industries/claude-agent-acp',
  commandHints: [/^claude-(agent|code)-acp$/, /[\\/]claude-(agent|code)-acp[\\/]/],
  clientCaps: { _meta: { ...CLAUDE_CLIENT_META } },
  hooks: () => ({ ...CLAUDE_HOOKS }),
};
