/**
 * pi swallows model errors on the wire (pi-acp answers `end_turn` with no text), but pi keeps its
 * own session log: the last assistant message there carries `stopReason: "error"` and the
 * provider's `errorMessage`. Reading it is the only way to report what the provider said.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

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
    const hit = st.isDirectory() ? (depth < 3 ? newestJsonl(p, depth + 1) : undefined) : n.endsWith('.jsonl') ? { path: p, mtime: st.mtimeMs } : undefined;
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
