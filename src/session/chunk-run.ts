import type { Update } from './router.js';

/**
 * Consecutive plain-text chunks of one message, held until the read that brought them is handled
 * (or anything else arrives for the session), then reduced as one chunk: one entry change and one
 * event per message per read instead of one per chunk. The thread ends up the same; what the agent
 * sent is still in the wire log frame by frame.
 */
export class ChunkRun {
  private kind = '';
  private messageId: string | undefined;
  private texts: string[] = [];
  private queued = false;

  constructor(
    private readonly apply: (update: Update, chunks: number) => void,
    private readonly schedule: (flush: () => void) => void = queueMicrotask,
  ) {}

  get size(): number {
    return this.texts.length;
  }

  /** Flushes what is held unless `u` is a text chunk of the same message (call before hooks see `u`). */
  before(u: Update): void {
    if (
      this.texts.length !== 0 &&
      (textOf(u) === undefined || u.sessionUpdate !== this.kind || idOf(u) !== this.messageId)
    )
      this.flush();
  }

  /** Takes `u` when it is a plain-text chunk (kept for the run); false for anything else. */
  take(u: Update): boolean {
    const text = textOf(u);
    if (text === undefined) return false;
    const kind = u.sessionUpdate;
    const messageId = idOf(u);
    if (this.texts.length !== 0 && (kind !== this.kind || messageId !== this.messageId)) this.flush();
    this.kind = kind;
    this.messageId = messageId;
    this.texts.push(text);
    if (!this.queued) {
      this.queued = true;
      this.schedule(this.flushQueued);
    }
    return true;
  }

  private readonly flushQueued = (): void => {
    this.queued = false;
    this.flush();
  };

  /** Reduces what is held (a no-op when nothing is). */
  flush(): void {
    const n = this.texts.length;
    if (n === 0) return;
    const text = n === 1 ? this.texts[0]! : this.texts.join('');
    this.texts = [];
    const u: Update = { sessionUpdate: this.kind, content: { type: 'text', text } };
    if (this.messageId !== undefined) u.messageId = this.messageId;
    this.apply(u, n);
  }
}

/** The text of a well-formed text chunk (a string messageId or none); undefined for anything else. */
function textOf(u: Update): string | undefined {
  const kind = u.sessionUpdate;
  if (kind !== 'agent_message_chunk' && kind !== 'agent_thought_chunk' && kind !== 'user_message_chunk')
    return undefined;
  const content = u.content as { type?: unknown; text?: unknown } | null | undefined;
  if (typeof content !== 'object' || content === null || content.type !== 'text' || typeof content.text !== 'string')
    return undefined;
  const id = u.messageId;
  return id === undefined || typeof id === 'string' ? content.text : undefined;
}

function idOf(u: Update): string | undefined {
  const id = u.messageId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}
