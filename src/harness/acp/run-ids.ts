/**
 * The messageIds Talaria gives the editor for messages the agent gave none: one per message of the
 * thread (the chunk goes where the thread puts it: runTarget), a UUID rather than the entry id (entry
 * ids repeat across threads, and one editor may hold several: a branch of a session it has).
 */
import { randomUUID } from 'node:crypto';
import { runTarget } from '../../thread/index.js';
import type { MessageEntry, Thread } from '../../thread/types.js';

/** A message's id as the editor knows it, for the thread entry `entry` of `kind`; `member`: spliced into raw lines. */
export interface RunId {
  entry: string;
  kind: string;
  id: string;
  member: string;
}

const NONE: RunId = { entry: '', kind: '', id: '', member: '' };

function made(entry: string, kind: string, id: string = randomUUID()): RunId {
  return { entry, kind, id, member: `"messageId":${JSON.stringify(id)},` };
}

export class RunIds {
  /** The thread's open run (`entry`: its id). */
  private run = NONE;
  /** The message a chunk is starting (`entry`: the id it will get). */
  private next = NONE;

  constructor(private readonly thread: Thread) {}

  /** The id of the message a chunk of `kind` without a messageId of its own goes to. */
  of(kind: MessageEntry['kind']): RunId {
    const t = runTarget(this.thread, kind);
    if (typeof t === 'string') {
      if (this.next.entry === t && this.next.kind === kind) return this.next;
      // The message started last is in the thread now (an empty chunk starts none): it is the open run.
      if (this.next.entry !== t) this.run = this.next;
      return (this.next = made(t, kind));
    }
    if (t.messageId !== undefined) return made(t.id, kind, t.messageId); // the agent's id for the run
    if (this.run.entry === t.id && this.run.kind === kind) return this.run;
    if (this.next.entry === t.id && this.next.kind === kind) return (this.run = this.next);
    return (this.run = made(t.id, kind));
  }
}
