/** What a turn sends besides its prompt's words (turns.ts): a notification that must not throw, the steer's context. */
import type { ContentBlock } from '../thread/types.js';
import type { SessionCore } from './core.js';

/** Sends a notification whose failure must not escape (a closed connection is reported by the turn). */
export function notifySafely(s: SessionCore, method: string, params: unknown): void {
  let sent: Promise<void>;
  try {
    sent = Promise.resolve(s.port.notify(method, params));
  } catch (err) {
    sent = Promise.reject(err);
  }
  sent.catch((err: unknown) => s.logger.debug(`${method} was not sent`, { sessionId: s.id, error: String(err) }));
}

/** The turn's context in front of the user's words, in the same text block (agents read one message). */
export function withContext(blocks: ContentBlock[], context: string | undefined): ContentBlock[] {
  if (!context) return blocks;
  const [first, ...rest] = blocks;
  if (first?.type === 'text' && typeof first.text === 'string')
    return [{ ...first, text: `${context}\n\n${first.text}` }, ...rest];
  return [{ type: 'text', text: context }, ...blocks];
}
