/**
 * The visible prompt queue of a live session (the hub's): a prompt sent while a turn runs waits
 * here, in order, editable and removable, and starts when the turn ends; "steer now" goes into
 * the running turn instead, ahead of what waits. Every change is one `queue.updated` event.
 */
import type { HarnessSession } from '../harness/index.js';
import type { SteerResult } from '../session/steer.js';
import type { ContentBlock } from '../thread/types.js';
import type { QueuedPrompt, StreamEvent, StreamEventName } from './contract/index.js';
import { HttpError } from './http-error.js';

export interface Queued {
  item: QueuedPrompt;
  blocks: ContentBlock[];
}

/** What the queue needs of a live session (the hub's LiveSession has it): its harness session, its waiting prompts, its steers under way. */
export interface QueueOwner {
  hs: HarnessSession;
  queue: Queued[];
  steering: number;
}

type SteerAnswer = { how: SteerResult['how']; via?: string; turnId?: string };

export class PromptQueue {
  private seq = 0;

  constructor(
    private readonly emit: (sessionId: string, type: StreamEventName, body: Record<string, unknown>) => StreamEvent,
  ) {}

  prompt(
    ls: QueueOwner,
    text: string,
    images: { mimeType: string; data: string }[],
  ): { id: string; queued: boolean; position: number } {
    const blocks: ContentBlock[] = [];
    if (text.trim() !== '') blocks.push({ type: 'text', text });
    for (const img of images) blocks.push({ type: 'image', mimeType: img.mimeType, data: img.data });
    const busy = ls.hs.session.running !== null || ls.queue.length > 0;
    if (!busy) {
      const turn = ls.hs.prompt(blocks);
      turn.result.catch(() => undefined);
      return { id: turn.id, queued: false, position: 0 };
    }
    // Refused now, not when its turn would start (nobody would hear it then).
    ls.hs.session.checkPrompt(blocks);
    const item: QueuedPrompt = {
      id: `q${++this.seq}`,
      text,
      images: images.length,
      position: ls.queue.length + 1,
      queuedAt: Date.now(),
    };
    ls.queue.push({ item, blocks });
    this.queueChanged(ls);
    return { id: item.id, queued: true, position: item.position };
  }

  /**
   * "Steer now" (issue 14): into the running turn, the agent's own way when it has one, else the
   * turn is cancelled and resent with the correction (session/steer.ts); with nothing running, a
   * normal prompt. Queued prompts wait until the steer is placed.
   */
  async steer(ls: QueueOwner, text: string): Promise<SteerAnswer> {
    if (ls.hs.session.running === null) {
      const r = this.prompt(ls, text, []);
      return { how: 'prompt', ...(r.queued ? {} : { turnId: r.id }) };
    }
    ls.steering++;
    try {
      const r = await ls.hs.session.steer(text);
      r.turn?.result.catch(() => undefined);
      return { how: r.how, ...(r.via ? { via: r.via } : {}), ...(r.turn ? { turnId: r.turn.id } : {}) };
    } finally {
      ls.steering--;
      this.startNext(ls);
    }
  }

  /**
   * "Steer now" on a queued prompt: off the queue and steered in one step (a remove, then a steer,
   * sent it twice when it started in between). The update that drops it names the turn that
   * carries it (`started`: the resent turn, or the running one the agent took it into), so a run
   * waiting on it (`talaria run --session`) follows it there instead of ending as removed. If the
   * steer fails, the prompt goes back where it was.
   */
  async steerQueued(ls: QueueOwner, itemId: string): Promise<SteerAnswer> {
    const i = ls.queue.findIndex((q) => q.item.id === itemId);
    if (i < 0) throw new HttpError('not_found', `no queued prompt ${itemId} (it may have started already)`);
    const q = ls.queue[i]!;
    if (q.blocks.some((b) => b.type !== 'text'))
      throw new HttpError(
        'invalid_argument',
        'a queued prompt with images cannot be steered (a steer is text): let it run, or remove it',
      );
    const running = ls.hs.session.running;
    if (running === null) {
      // Nothing to steer into: it simply goes first.
      ls.queue.splice(i, 1);
      ls.queue.unshift(q);
      const started = this.startNext(ls);
      return { how: 'prompt', ...(started ? { turnId: started.turnId } : {}) };
    }
    ls.queue.splice(i, 1);
    ls.steering++;
    let r: SteerResult;
    try {
      r = await ls.hs.session.steer(q.item.text);
    } catch (err) {
      ls.queue.splice(Math.min(i, ls.queue.length), 0, q);
      ls.steering--;
      this.startNext(ls);
      throw err;
    }
    ls.steering--;
    r.turn?.result.catch(() => undefined);
    this.queueChanged(ls, { id: itemId, turnId: r.turn?.id ?? running.id });
    this.startNext(ls);
    return { how: r.how, ...(r.via ? { via: r.via } : {}), ...(r.turn ? { turnId: r.turn.id } : {}) };
  }

  startNext(ls: QueueOwner): { id: string; turnId: string } | undefined {
    if (ls.hs.session.running !== null || ls.steering > 0) return undefined;
    const next = ls.queue.shift();
    if (!next) return undefined;
    let started: { id: string; turnId: string } | undefined;
    try {
      const turn = ls.hs.prompt(next.blocks);
      turn.result.catch(() => undefined);
      started = { id: next.item.id, turnId: turn.id };
    } finally {
      // After the prompt: the update names the turn the queued prompt became (a run waits for it).
      this.queueChanged(ls, started);
    }
    return started;
  }

  queueChanged(ls: QueueOwner, started?: { id: string; turnId: string }): void {
    ls.queue.forEach((q, i) => (q.item.position = i + 1));
    this.emit(ls.hs.id, 'queue.updated', {
      queue: ls.queue.map((q) => ({ ...q.item })),
      ...(started ? { started } : {}),
    });
  }

  editQueued(ls: QueueOwner, itemId: string, text: string | undefined): void {
    const i = ls.queue.findIndex((q) => q.item.id === itemId);
    if (i < 0) throw new HttpError('not_found', `no queued prompt ${itemId} (it may have started already)`);
    if (text === undefined) ls.queue.splice(i, 1);
    else {
      const q = ls.queue[i]!;
      q.item.text = text;
      q.blocks = [{ type: 'text', text }, ...q.blocks.filter((b) => b.type !== 'text')];
    }
    this.queueChanged(ls);
  }
}
