/**
 * A session of exactly N entries, as the flood agent would replay it on `session/load`: the
 * flood mix with a user message opening each turn (flood-frames.ts, same seed), cut at the last
 * frame before entry N+1 would appear. The frame count for N entries is found by reducing the
 * frames once (the mix is prefix-stable: the first k templates do not depend on how many are built).
 */
import { createThread, reduce } from '../src/thread/index.js';
import type { Thread } from '../src/thread/types.js';
import { FRAME_TAIL, buildTemplates, envelopeFor } from './flood-frames.js';

export interface HistoryData {
  /** Frames that make exactly `entries` entries. */
  frames: number;
  entries: number;
  /** Each frame's JSON text (no newline), stamped 0. */
  lines: string[];
  /** The thread those frames reduce to. */
  thread: Thread;
}

type Update = { sessionUpdate: string; [k: string]: unknown };

export function historyData(entries: number, sessionId = 'history', seed = 1): HistoryData {
  const env = envelopeFor(sessionId);
  const tail = FRAME_TAIL.slice(0, -1); // without the newline
  // About 8 frames per entry in this mix; grow if the guess falls short.
  for (let guess = entries * 10 + 100; ; guess *= 2) {
    const templates = buildTemplates(guess, { seed, withUser: true });
    const thread = createThread();
    const lines: string[] = [];
    for (const t of templates) {
      const line = env + t.body + '0' + tail;
      const update = (JSON.parse(line) as { params: { update: Update } }).params.update;
      const before = thread.entries.length;
      reduce(thread, { type: 'update', update });
      if (thread.entries.length > entries) {
        // This frame opened entry N+1: rebuild without it (reduce mutates in place).
        const exact = createThread();
        for (const l of lines)
          reduce(exact, { type: 'update', update: (JSON.parse(l) as { params: { update: Update } }).params.update });
        if (exact.entries.length !== entries || before !== entries)
          throw new Error('history data: entry count drifted');
        return { frames: lines.length, entries, lines, thread: exact };
      }
      lines.push(line);
    }
  }
}
