/**
 * pi through pi-acp. pi swallows model errors on the wire (pi-acp answers `end_turn` with no
 * text and no tool call), but pi keeps its own session log: the last assistant message there
 * carries `stopReason: "error"` and the provider's `errorMessage`. Reading it is the only way to
 * report what the provider said. (With several pi sessions at once the newest log may be another
 * session's; the turn is still reported as an error, only the detail may be off.)
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionHooks, TurnClassification, TurnSummary } from '../../session/hooks.js';
import { agentError } from '../../session/errors.js';
import type { ProviderEnv } from '../types.js';
import type { QuirkSet } from './types.js';

/** pi's own folder: PI_CODING_AGENT_DIR, else ~/.pi/agent. */
export function piAgentDir(ctx: Pick<ProviderEnv, 'env' | 'homeDir'>): string {
  return ctx.env.PI_CODING_AGENT_DIR || join(ctx.homeDir, '.pi', 'agent');
}

function newestJsonl(dir: string, depth = 0): { path: string; mtime: number } | undefined {
  let best: { path: string; mtime: number } | undefined;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return undefined;
  }
  for (const n of names) {
    const p = join(dir, n);
    const st = statSync(p, { throwIfNoEntry: false });
    if (!st) continue;
    const hit = st.isDirectory()
      ? depth < 3
        ? newestJsonl(p, depth + 1)
        : undefined
      : n.endsWith('.jsonl')
        ? { path: p, mtime: st.mtimeMs }
        : undefined;
    if (hit && (!best || hit.mtime > best.mtime)) best = hit;
  }
  return best;
}

/** The provider error of the last assistant message in pi's newest session log, if it failed. */
export function lastPiError(agentDir: string): string | undefined {
  const f = newestJsonl(join(agentDir, 'sessions'));
  if (!f) return undefined;
  const lines = readFileSync(f.path, 'utf8').trimEnd().split('\n');
  for (let i = lines.length - 1; i >= 0; i--) {
    let e: { type?: string; message?: { role?: string; stopReason?: string; errorMessage?: string } };
    try {
      e = JSON.parse(lines[i]!) as typeof e;
    } catch {
      continue;
    }
    if (e.type === 'message' && e.message?.role === 'assistant') {
      return e.message.stopReason === 'error' ? (e.message.errorMessage ?? 'error (no message)') : undefined;
    }
  }
  return undefined;
}

/** An empty `end_turn` (no text, no tool call) is pi's swallowed model error; the detail comes from its log. */
export function piClassifyTurn(t: TurnSummary, agentDir?: string): TurnClassification | undefined {
  if (t.cancelled || t.stopReason !== 'end_turn' || t.text.trim() !== '' || (t.toolCalls ?? 0) !== 0) return undefined;
  const logged = agentDir === undefined ? undefined : lastPiError(agentDir);
  return logged
    ? agentError(logged, { source: 'silence' })
    : agentError('the agent ended the turn with no answer (pi reports model errors this way)', { source: 'silence' });
}

export function piHooks(agentDir?: string): SessionHooks {
  return { classifyTurn: (t) => piClassifyTurn(t, agentDir) };
}

export const piQuirks: QuirkSet = {
  id: 'pi-acp',
  label: 'pi (pi-acp)',
  names: /^pi-acp$/i,
  hintName: 'pi-acp',
  commandHints: [/^pi-acp$/, /[\\/]pi-acp[\\/]/],
  // The swallowed-error hook reads pi's own session log, which lives in pi's agent folder.
  hooks: (o) => piHooks(o?.env ? piAgentDir(o.env) : undefined),
};
