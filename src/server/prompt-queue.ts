/**
 * The server's face of a session's prompt queue. The queue itself is the session's
 * (src/session/prompt-queue.ts: queued while a turn runs, editable, removable, "steer now", each
 * change a `queue.updated` event the hub passes on as it is); this only turns HTTP bodies into
 * session operations and their results into the contract's answers.
 */
import type { HarnessSession } from '../harness/index.js';
import type { SteerResult } from '../session/steer.js';
import type { ContentBlock } from '../thread/types.js';
import type { QueuedPrompt } from './contract/index.js';

export type SteerAnswer = { how: SteerResult['how']; via?: string; turnId?: string };

/** A prompt's content blocks from an HTTP body: its text (when any), then its images. One road for a prompt sent here and one forwarded. */
export function promptBlocks(text: string, images: readonly { mimeType: string; data: string }[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (text.trim() !== '') blocks.push({ type: 'text', text });
  for (const img of images) blocks.push({ type: 'image', mimeType: img.mimeType, data: img.data });
  return blocks;
}

/** A prompt from a face: sent now, or queued behind the running turn (then `id` is its queued id). */
export function sendPrompt(
  hs: HarnessSession,
  text: string,
  images: { mimeType: string; data: string }[],
): { id: string; queued: boolean; position: number } {
  const turn = hs.prompt(promptBlocks(text, images));
  // Nobody waits on it here: its end is an event.
  turn.result.catch(() => undefined);
  const q = hs.session.queuedPrompt(turn.id);
  return q ? { id: q.id, queued: true, position: q.position } : { id: turn.id, queued: false, position: 0 };
}

/** "Steer now" (issue 14): `text`, or the queued prompt `queued` (session/steer.ts). */
export async function steerNow(hs: HarnessSession, b: { text?: string; queued?: string }): Promise<SteerAnswer> {
  const r = b.queued !== undefined ? await hs.session.steerQueued(b.queued) : await hs.session.steer(b.text!);
  r.turn?.result.catch(() => undefined);
  return { how: r.how, ...(r.via ? { via: r.via } : {}), ...(r.turn ? { turnId: r.turn.id } : {}) };
}

export function queueOf(hs: HarnessSession | undefined): { queue: QueuedPrompt[] } {
  return { queue: hs ? hs.session.queue : [] };
}
