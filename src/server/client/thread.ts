/**
 * Folding the stream into a snapshot on the client: start from a `snapshot`, apply each event
 * in seq order. Pure and browser-safe; the server's tests use it to prove resume is exact.
 */
import type { SessionSnapshot, StreamEvent } from '../contract/index.js';

type Thread = SessionSnapshot['thread'];

/** Applies one event to a snapshot's thread and seq, in place. Unknown kinds only move seq. */
export function applyEvent(s: SessionSnapshot, e: StreamEvent): void {
  const t: Thread = s.thread;
  switch (e.type) {
    case 'entry.added':
    case 'entry.updated':
      t.entries[e.index] = e.entry;
      break;
    case 'entry.appended': {
      const cur = t.entries[e.index] as { text?: string } | undefined;
      if (cur) t.entries[e.index] = { ...cur, text: (cur.text ?? '') + e.text };
      break;
    }
    case 'plan.updated':
      t.plan = e.plan;
      break;
    case 'commands.updated':
      t.availableCommands = e.commands;
      break;
    case 'mode.updated':
      t.currentModeId = e.modeId;
      break;
    case 'config.updated':
      t.configOptions = e.configOptions;
      break;
    case 'info.updated':
      if (e.title !== undefined) t.title = e.title;
      if (e.updatedAt !== undefined) t.updatedAt = e.updatedAt;
      break;
    case 'context.updated':
      t.context = e.context;
      break;
    case 'catalog.updated':
      s.catalog = e.catalog;
      break;
    case 'permission.asked':
      s.pending.push({
        requestKey: e.requestKey,
        toolCallId: e.toolCallId,
        options: e.options,
        subject: e.subject,
        seq: e.seq,
        ...(e.title !== undefined ? { title: e.title } : {}),
      });
      break;
    case 'permission.resolved':
      s.pending = s.pending.filter((p) => p.requestKey !== e.requestKey);
      break;
    case 'queue.updated':
      s.queue = e.queue;
      break;
    case 'turn.started':
      s.turnId = e.turnId;
      break;
    case 'turn.ended':
      delete s.turnId;
      break;
    case 'session.state':
      s.session = { ...s.session, state: e.state };
      break;
    default:
      break;
  }
  s.seq = e.seq;
}
