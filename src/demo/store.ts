/**
 * One JSON file per demo session under `<home>/sessions/`, so a fresh demo process can
 * `session/load` (replay) and `session/list` what an earlier process recorded.
 */
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { writeTextAtomic } from './fs-ops.js';

export interface StoredSession {
  version: 1;
  sessionId: string;
  cwd: string;
  title: string | null;
  createdAt: string;
  updatedAt: string;
  /** Prompts handled so far; ids of messages and tool calls derive from it. */
  turns: number;
  model: string;
  mode: string;
  /** Tokens "in context", reported as usage_update.used. */
  usedTokens: number;
  /** Replayable updates, in the order they were sent (user prompts included). */
  history: acp.SessionUpdate[];
}

// Session ids are UUIDs; anything else never touches the file system.
const ID_RE = /^[A-Za-z0-9-]{1,64}$/;

export class SessionStore {
  private readonly dir: string;

  constructor(home: string) {
    this.dir = join(home, 'sessions');
  }

  private file(id: string): string {
    return join(this.dir, `${id}.json`);
  }

  save(s: StoredSession): void {
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeTextAtomic(this.file(s.sessionId), JSON.stringify(s), 0o600);
  }

  load(id: string): StoredSession | null {
    if (!ID_RE.test(id)) return null;
    try {
      return parse(readFileSync(this.file(id), 'utf8'));
    } catch {
      return null;
    }
  }

  /** All readable sessions, newest first (ties broken by id, so paging is stable). */
  all(): StoredSession[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return [];
    }
    const out: StoredSession[] = [];
    for (const n of names) {
      if (!n.endsWith('.json')) continue;
      const s = this.load(n.slice(0, -5));
      if (s) out.push(s);
    }
    return out.sort((a, b) =>
      a.updatedAt === b.updatedAt ? a.sessionId.localeCompare(b.sessionId) : a.updatedAt < b.updatedAt ? 1 : -1,
    );
  }
}

function parse(text: string): StoredSession | null {
  const v = JSON.parse(text) as Partial<StoredSession>;
  if (v.version !== 1 || typeof v.sessionId !== 'string' || typeof v.cwd !== 'string') return null;
  if (!Array.isArray(v.history)) return null;
  return v as StoredSession;
}

/** Opaque cursor: the offset into the filtered, sorted list. */
export function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString('base64url');
}

export function decodeCursor(cursor: string): number | null {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { o?: unknown };
    return typeof v.o === 'number' && Number.isInteger(v.o) && v.o >= 0 ? v.o : null;
  } catch {
    return null;
  }
}
