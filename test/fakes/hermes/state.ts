/**
 * Session persistence: transcripts in a JSON file in $HERMES_HOME (`emulator-sessions.json`),
 * standing in for the `messages` table of Hermes' SQLite SessionDB; every put also writes the
 * session's row of the real-schema SQLite `state.db` (state-db.ts). Re-read on every access and
 * written under state.db's write lock, so several emulator processes on one home see each other's
 * sessions (load/list/resume work across processes, as with the real shared state.db).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { upsertSessionRow, writeStateDb } from './state-db.js';

export interface ToolCallRec {
  id: string;
  name: string;
  args: Record<string, unknown>;
}

/** OpenAI-style history, as Hermes persists it. */
export type HistoryMessage =
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; reasoning?: string; tool_calls?: ToolCallRec[] }
  | { role: 'tool'; tool_call_id: string; tool_name: string; content: string };

export interface SessionRecord {
  id: string;
  source: 'acp';
  cwd: string;
  title: string | null;
  provider: string;
  model: string;
  parentId: string | null;
  /** Set when the row was ended: 'compression' by a rotation (compression.in_place false). */
  endReason?: string | null;
  endedAt?: number | null;
  startedAt: number;
  lastActive: number;
  /** Counter for provider tool-call ids (`call_<tool>_<n>`). */
  toolSeq: number;
  /** The rows on disk. A failed turn's user message and the prompts merged into it later
   * stay separate rows here; the live agent's history (Runtime.history) holds them merged. */
  history: HistoryMessage[];
}

interface DbFile {
  version: 1;
  sessions: Record<string, SessionRecord>;
}

/** The emulator's transcript store (not a Hermes file). */
export const STORE_FILE = 'emulator-sessions.json';

export class Store {
  readonly file: string;

  constructor(readonly home: string) {
    this.file = join(home, STORE_FILE);
  }

  private read(): DbFile {
    if (!existsSync(this.file)) return { version: 1, sessions: {} };
    try {
      const db = JSON.parse(readFileSync(this.file, 'utf8')) as DbFile;
      return db && typeof db.sessions === 'object' ? db : { version: 1, sessions: {} };
    } catch {
      return { version: 1, sessions: {} };
    }
  }

  get(id: string): SessionRecord | null {
    return this.read().sessions[id] ?? null;
  }

  all(): SessionRecord[] {
    return Object.values(this.read().sessions);
  }

  /**
   * Read-modify-write of one record, under state.db's write lock: two emulators on one home each
   * writing the file they read would drop the other's new session (Hermes keeps them all in state.db).
   * tmp + rename keeps readers from seeing a torn file.
   */
  put(rec: SessionRecord): void {
    mkdirSync(this.home, { recursive: true });
    writeStateDb(this.home, (sdb) => {
      const db = this.read();
      db.sessions[rec.id] = rec;
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(db));
      renameSync(tmp, this.file);
      upsertSessionRow(sdb, rec);
    });
  }

  titleTaken(title: string, exceptId: string): boolean {
    return this.all().some((s) => s.id !== exceptId && s.title === title);
  }
}

/** Python's `datetime.isoformat()` with a UTC offset: `2026-11-30T01:19:02.921700+00:00`. */
export function pyIso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000+00:00');
}

/** Hermes' list title: stored title, else the first user message, else the cwd leaf. */
export function listTitle(rec: SessionRecord): string {
  if (rec.title && rec.title.trim()) return rec.title;
  const first = rec.history.find((m) => m.role === 'user' && m.content.trim());
  if (first) return first.content.trim();
  return basename(rec.cwd.replace(/[/\\]+$/, '')) || 'New thread';
}
