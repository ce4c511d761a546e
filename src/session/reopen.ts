/**
 * Reopening the agent's session before a prompt (hooks.reopenAfterFailedTurn): some adapters
 * (the Claude ones) leave their prompt stream one message behind after an error, a cancel or a
 * rejected permission, so the next prompt answers at once with nothing or with the previous
 * answer. Closing (where supported) and resuming the session gives it a fresh stream with the
 * same history. Failing to reopen is a visible warning, not a failed turn.
 */
import type { SessionCore } from './core.js';

export async function reopenAtAgent(s: SessionCore): Promise<void> {
  const params: Record<string, unknown> = { sessionId: s.id, cwd: s.cwd, mcpServers: s.mcpServers };
  if (s.additionalDirectories.length) params.additionalDirectories = s.additionalDirectories;
  try {
    // Agents without session/close (claude-code-acp) replace the session on resume anyway.
    await s.port.request('session/close', { sessionId: s.id }, { timeoutMs: 30_000 }).catch(() => undefined);
    s.adoptSetup(await s.port.request('session/resume', params, { timeoutMs: 60_000 }));
  } catch (err) {
    s.logger.warn('reopening the session after a failed turn did not work', { sessionId: s.id, error: String(err) });
    s.notice(
      'warning',
      'reopen_failed',
      'The agent could not reopen the session after the failed turn; the next answer may be stale.',
    );
  }
}
