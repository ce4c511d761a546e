/**
 * Quirk switches both Claude Code ACP adapters need (claude-agent-acp and the older
 * claude-code-acp), as the offline matrix proved them (test/agents/).
 */
import type { SessionHooks } from '../../session/hooks.js';

/**
 * The adapters leave their prompt stream one message behind after a failed or cancelled turn:
 * reopen the session before the next prompt.
 */
export const CLAUDE_HOOKS: Readonly<SessionHooks> = { reopenAfterFailedTurn: true };

/** Without the `terminal-auth` client capability the adapters list no auth method at all. */
export const CLAUDE_CLIENT_META: Readonly<Record<string, unknown>> = { 'terminal-auth': true };
