/**
 * Agents whose history replay sends every stored message as ONE chunk with no messageId (Hermes
 * ≤0.20: `_replay_session_history` sends each message's text whole; hooks.replayWholeMessages).
 * Two user messages in a row there (a turn that got no answer, an overflow, a message the agent
 * added itself) are two messages, which the no-messageId rule (consecutive chunks build one
 * message) would glue. During such a replay each id-less chunk gets an id of its own, which the
 * chunk run and the reducer keep apart. Live streaming is left to the usual rule.
 */
import { randomUUID } from 'node:crypto';
import type { Update } from './router.js';

const CHUNKS = new Set(['user_message_chunk', 'agent_message_chunk', 'agent_thought_chunk']);

export function ownMessage(u: Update): Update {
  if (!CHUNKS.has(u.sessionUpdate) || (typeof u.messageId === 'string' && u.messageId !== '')) return u;
  return { ...u, messageId: randomUUID() };
}
