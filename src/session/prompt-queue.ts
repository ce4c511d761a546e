/**
 * The one prompt queue of a session: prompts sent while a turn runs wait here, in order, each
 * under a stable id (`q1`, `q2`… per session), visible, editable and removable until their turn
 * starts. Every face shows this queue (the server's `queue.updated` is its event), so there is
 * no second queue to disagree with it. It only holds; turns.ts decides when the next one runs.
 */
import { TalariaError } from '../protocol/errors.js';
import type { ContentBlock } from '../thread/types.js';
import { checkPromptSize, type SessionCore } from './core.js';
import type { Turn } from './turn.js';

/** A queued prompt as every face shows it (the server's contract has the same shape). */
export interface QueuedPrompt {
  id: string;
  text: string;
  /** How many images it carries. */
  images: number;
  /** 1 = next. */
  position: number;
  queuedAt: number;
}

export interface Waiting {
  id: string;
  turn: Turn;
  queuedAt: number;
}

/** The queued prompt that left the queue as a turn (or went into the turn that carries it). */
export interface QueueStart {
  id: string;
  turnId: string;
}

const notQueued = (id: string) => new TalariaError('not_found', `no queued prompt ${id} (it may have started already)`);

export class PromptQueue {
  private readonly items: Waiting[] = [];
  private seq = 0;

  constructor(private readonly s: SessionCore) {}

  get length(): number {
    return this.items.length;
  }

  get turns(): Turn[] {
    return this.items.map((w) => w.turn);
  }

  list(): QueuedPrompt[] {
    return this.items.map((w, i) => shown(w, i + 1));
  }

  /** The queued prompt a turn waits as, if it waits. */
  of(turnId: string): QueuedPrompt | undefined {
    const i = this.items.findIndex((w) => w.turn.id === turnId);
    return i < 0 ? undefined : shown(this.items[i]!, i + 1);
  }

  /** Queues a turn (`front`: a steer's, next in line); says so with `turn.queued` and `queue.updated`. */
  add(turn: Turn, front = false): void {
    const w: Waiting = { id: `q${++this.seq}`, turn, queuedAt: this.s.now() };
    if (front) this.items.unshift(w);
    else this.items.push(w);
    this.s.emit('turn.queued', { turnId: turn.id, position: front ? 1 : this.items.length });
    this.changed();
  }

  /** The next one, off the queue; the caller tells (changed) once its turn started. */
  shift(): Waiting | undefined {
    return this.items.shift();
  }

  /** Takes `id` off the queue without telling (a steer tells once it is placed, or puts it back). */
  take(id: string): { w: Waiting; at: number } {
    const at = this.items.findIndex((w) => w.id === id);
    if (at < 0) throw notQueued(id);
    return { w: this.items.splice(at, 1)[0]!, at };
  }

  /** Puts back what take() took, where it was (or last, if the queue got shorter meanwhile). */
  putBack(w: Waiting, at: number): void {
    this.items.splice(Math.min(at, this.items.length), 0, w);
  }

  moveToFront(w: Waiting): void {
    this.items.unshift(w);
  }

  /** The queued prompt's text, its images kept. */
  edit(id: string, text: string): void {
    const w = this.items.find((x) => x.id === id);
    if (!w) throw notQueued(id);
    const blocks: ContentBlock[] = [{ type: 'text', text }, ...w.turn.prompt.filter((b) => b.type !== 'text')];
    checkPromptSize(blocks, this.s.maxPromptBytes);
    w.turn.prompt = blocks;
    this.changed();
  }

  /** Everything queued, off the queue (the caller ends their turns). */
  clear(): Waiting[] {
    return this.items.splice(0);
  }

  /** One `queue.updated`: the queue as it is now, and the prompt that just left it as a turn. */
  changed(started?: QueueStart): void {
    this.s.emit('queue.updated', { queue: this.list(), ...(started ? { started } : {}) });
  }
}

function shown(w: Waiting, position: number): QueuedPrompt {
  const blocks = w.turn.prompt;
  return {
    id: w.id,
    text: blocks
      .map((b) => (b.type === 'text' && typeof b.text === 'string' ? b.text : ''))
      .filter(Boolean)
      .join('\n'),
    images: blocks.filter((b) => b.type === 'image').length,
    position,
    queuedAt: w.queuedAt,
  };
}

/** A steer is text: a queued prompt with anything else in it cannot be one. */
export function steerableText(w: Waiting): string {
  if (w.turn.prompt.some((b) => b.type !== 'text'))
    throw new TalariaError(
      'invalid_argument',
      'a queued prompt with images cannot be steered (a steer is text): let it run, or remove it',
    );
  return shown(w, 0).text;
}
