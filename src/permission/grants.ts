/**
 * What a person already allowed: when the agent asks permission for a tool call and the user
 * allows it, the effects that tool call then asks Talaria to perform (claude-code-acp asks, then
 * calls fs/write_text_file on the same file, or terminal/create with the same command) are
 * covered by that answer instead of being asked again.
 *
 * A grant covers an effect only while it can still belong to that tool call: the same turn,
 * the tool call still open (the caller says), and exactly the same file (by real path) or the
 * same command line — compared as rules compare it (env-words.ts: the agent's plain `NAME=value`
 * words in front do not count, a risky one like `LD_PRELOAD=…` does). Policy answers grant
 * nothing (a rule that allowed the request also decides the effect); a cancel forgets the
 * session's grants. The broker never uses a grant
 * for a forced ask (a sensitive file, a dangerous command): the user allowed a request whose
 * title the agent wrote, so for those Talaria asks again in its own words.
 */
import { commandForMatching } from './env-words.js';
import type { PermissionSubject } from './types.js';

export interface Grant {
  requestKey: string;
  toolCallId: string;
  turnId: string;
  /** Every path of the allowed request, as named and as resolved. */
  paths: Set<string>;
  /** The allowed command line, as commandForMatching gives it. */
  command?: string;
}

/** Grants kept per session (the newest win). */
const MAX_PER_SESSION = 64;

export class Grants {
  private readonly bySession = new Map<string, Grant[]>();

  /** Records a user's allow of an agent request made during a turn. */
  add(sessionId: string, turnId: string | undefined, requestKey: string, subject: PermissionSubject): void {
    if (!turnId || !subject.toolCallId) return;
    const g: Grant = {
      requestKey,
      toolCallId: subject.toolCallId,
      turnId,
      paths: new Set([...subject.paths, ...(subject.realPaths ?? [])]),
    };
    if (subject.command?.trim()) g.command = commandForMatching(subject.command);
    if (g.paths.size === 0 && !g.command) return;
    // Grants of an earlier turn can never match again: keep the current turn's only.
    const list = (this.bySession.get(sessionId) ?? []).filter((x) => x.turnId === turnId);
    list.push(g);
    if (list.length > MAX_PER_SESSION) list.shift();
    this.bySession.set(sessionId, list);
  }

  /** The newest grant covering `effect`, if any. */
  covering(
    sessionId: string,
    turnId: string | undefined,
    effect: PermissionSubject,
    toolCallOpen: ((toolCallId: string) => boolean) | undefined,
  ): Grant | undefined {
    if (!turnId || !toolCallOpen || !effect.effect) return undefined;
    const list = this.bySession.get(sessionId) ?? [];
    for (let i = list.length - 1; i >= 0; i--) {
      const g = list[i]!;
      if (g.turnId !== turnId || !safeOpen(toolCallOpen, g.toolCallId)) continue;
      if (effect.effect === 'terminal.create') {
        if (g.command !== undefined && effect.command !== undefined && commandForMatching(effect.command) === g.command)
          return g;
        continue;
      }
      // fs effects: the file Talaria would really touch must be one the user saw.
      const targets = effect.realPaths ?? effect.paths;
      if (targets.length > 0 && targets.every((p) => g.paths.has(p))) return g;
    }
    return undefined;
  }

  forgetSession(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  forgetTurn(turnId: string): void {
    for (const [sid, list] of this.bySession) {
      const kept = list.filter((g) => g.turnId !== turnId);
      if (kept.length === 0) this.bySession.delete(sid);
      else this.bySession.set(sid, kept);
    }
  }

  clear(): void {
    this.bySession.clear();
  }
}

function safeOpen(fn: (id: string) => boolean, id: string): boolean {
  try {
    return fn(id) === true;
  } catch {
    return false;
  }
}
