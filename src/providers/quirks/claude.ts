/**
 * Both Claude Code ACP adapters (claude-agent-acp — Zed's 0.2x line and its successor
 * @agentclientprotocol/claude-agent-acp — and the older claude-code-acp), as the offline matrix
 * proved them (test/agents/).
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

/**
 * @agentclientprotocol/claude-agent-acp 0.101.0 starts sessions in `auto`, where Claude's own
 * classifier runs edits and commands without asking: Talaria's policy would never see them (the
 * matrix wrote the file and ran the denied command). In `default` it asks before each one, so the
 * policy decides, for every Talaria mode (as with qwen). Zed's 0.2x line already starts there.
 */
export const CLAUDE_ASKING_MODE = 'default';

export const claudeQuirks: QuirkSet = {
  id: 'claude-acp',
  label: 'Claude Code ACP adapter',
  // Any scope: Zed's, the ACP org's and forks (@sudocode-ai/claude-code-acp) share the prompt-stream bug.
  names: /^claude-(agent|code)-acp$/i,
  // Every adapter line titles itself "Claude Code" and offers the `claude-login` method.
  fingerprint: ({ title, authMethodIds }) => title === 'Claude Code' || authMethodIds.includes('claude-login'),
  hintName: '@zed-industries/claude-agent-acp',
  commandHints: [/^claude-(agent|code)-acp$/, /[\\/]claude-(agent|code)-acp[\\/]/],
  clientCaps: { _meta: { ...CLAUDE_CLIENT_META } },
  hooks: () => ({ ...CLAUDE_HOOKS }),
  modeFor: () => CLAUDE_ASKING_MODE,
};
