/**
 * What a scripted behaviour may do during one turn, plus small helpers shared by the
 * scripts. The agent (agent.ts) implements TurnIo; scripts never see the SDK connection.
 */
import type * as acp from '@agentclientprotocol/sdk';

export interface DemoTiming {
  /** Pause between streamed chunks of ordinary replies (makes streaming visible). */
  chunkDelayMs: number;
  /** Pause between chunks of the `slow` script. */
  slowDelayMs: number;
  slowChunks: number;
  runTimeoutMs: number;
  maxOutputBytes: number;
  /** Cap on the text a `read` returns. */
  maxReadBytes: number;
}

/** allow: go ahead; reject: user said no; cancelled: the turn is being cancelled. */
export type Decision = 'allow' | 'reject' | 'cancelled';

export interface TurnIo {
  readonly cwd: string;
  readonly model: string;
  readonly mode: string;
  readonly timing: DemoTiming;
  /** Aborted when the client sends session/cancel (or the connection closes). */
  readonly signal: AbortSignal;
  /** `transient` updates are sent but not kept for replay (e.g. intermediate command output). */
  send(update: acp.SessionUpdate, opts?: { transient?: boolean }): Promise<void>;
  messageId(): string;
  toolCallId(): string;
  /** Ask the client (unless mode or an earlier "always" makes it unnecessary). */
  permit(toolCall: acp.ToolCallUpdate): Promise<Decision>;
  /** Sleep that ends early when the turn is cancelled. */
  pause(ms: number): Promise<void>;
}

/** Thrown by scripts to unwind a cancelled turn; the agent turns it into `cancelled`. */
export class TurnCancelled extends Error {
  constructor() {
    super('turn cancelled');
  }
}

export function check(io: TurnIo): void {
  if (io.signal.aborted) throw new TurnCancelled();
}

export function textContent(text: string): acp.ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

/** Deterministic deltas: groups of three words, whitespace kept. */
export function chunks(text: string): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += 3) out.push(words.slice(i, i + 3).join(''));
  return out;
}

async function stream(io: TurnIo, kind: 'agent_message_chunk' | 'agent_thought_chunk', text: string): Promise<void> {
  const messageId = io.messageId();
  let first = true;
  for (const delta of chunks(text)) {
    check(io);
    if (!first) await io.pause(io.timing.chunkDelayMs);
    check(io);
    first = false;
    await io.send({ sessionUpdate: kind, messageId, content: { type: 'text', text: delta } });
  }
}

export const say = (io: TurnIo, text: string): Promise<void> => stream(io, 'agent_message_chunk', text);
export const think = (io: TurnIo, text: string): Promise<void> => stream(io, 'agent_thought_chunk', text);

export function snippet(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
