/**
 * One probe turn: send a prompt through the session (so Talaria's own turn handling runs), and
 * read back the raw frames between the `session/prompt` request and its response: updates,
 * permission requests, timings. A turn that does not end within the limit is cancelled; one
 * that does not end even then marks the session busy.
 */
import type { ContentBlock } from '../../thread/types.js';
import type { TurnResult } from '../../session/turn.js';
import { within, type ProbeContext } from './context.js';
import { chunkText, isRequest, isResponseTo, kindOf, updateOf, type Recorded } from './recorder.js';

export interface TurnRun {
  result?: TurnResult;
  timedOut: boolean;
  /** The session/prompt request and its response frame (when seen). */
  request?: Recorded;
  response?: Recorded;
  /** Frames from the request up to and including the response (or up to now). */
  frames: Recorded[];
  /** session/update frames of this session within the turn. */
  updates: Recorded[];
  /** Agent text streamed in this turn. */
  text: string;
  /** The agent's own stop reason from the raw response. */
  stopReason?: string;
  /** The JSON-RPC error the prompt answered with, if any. */
  error?: unknown;
}

export interface TurnHooks {
  /** Called once the turn is running, with a promise that resolves when it ended. */
  during?: (ended: Promise<unknown>, from: number) => Promise<void>;
}

export async function runTurn(
  ctx: ProbeContext,
  prompt: string | ContentBlock[],
  hooks: TurnHooks = {},
): Promise<TurnRun> {
  const { recorder: rec, session } = ctx;
  const from = rec.mark();
  const turn = session.prompt(prompt);
  const ended = turn.result;
  const during = hooks.during?.(ended, from) ?? Promise.resolve();
  let out = await within(ended, ctx.timeoutMs);
  let timedOut = false;
  if (!out.ok) {
    timedOut = true;
    await session.cancel();
    out = await within(ended, ctx.timeoutMs);
    if (!out.ok) ctx.busy = `a turn did not end within ${ctx.timeoutMs} ms, not even after session/cancel`;
  }
  await within(during, ctx.timeoutMs);
  return collect(ctx, from, out.ok ? out.value : undefined, timedOut);
}

/** Reads the turn's frames out of the recorder (everything up to the response is there by now). */
export function collect(ctx: ProbeContext, from: number, result: TurnResult | undefined, timedOut: boolean): TurnRun {
  const rec = ctx.recorder;
  const sid = ctx.session.id;
  const all = rec.slice(from);
  const request = all.find(
    (r) => isRequest(r, 'session/prompt') && (r.msg.params as { sessionId?: unknown })?.sessionId === sid,
  );
  const response = request ? all.find((r) => isResponseTo(r, request)) : undefined;
  const frames = request ? all.filter((r) => r.i >= request.i && (!response || r.i <= response.i)) : [];
  const updates = frames.filter((r) => updateOf(r, sid) !== undefined);
  const text = updates
    .filter((r) => kindOf(r, sid) === 'agent_message_chunk')
    .map((r) => chunkText(updateOf(r, sid)!))
    .join('');
  // Every live tool call id, whatever the check: load compares them with the replayed ids.
  for (const r of updates) {
    const id = updateOf(r, sid)?.toolCallId;
    if (typeof id === 'string' && id) ctx.liveToolIds.add(id);
  }
  const run: TurnRun = { timedOut, frames, updates, text };
  if (result) run.result = result;
  if (request) run.request = request;
  if (response) {
    run.response = response;
    const stop = (response.msg.result as { stopReason?: unknown } | undefined)?.stopReason;
    if (typeof stop === 'string') run.stopReason = stop;
    if (response.msg.error !== undefined) run.error = response.msg.error;
  }
  return run;
}

/** Every string inside a value (tool output, rawOutput, content blocks), for marker searches. */
export function strings(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v);
  else if (Array.isArray(v)) for (const x of v) strings(x, out);
  else if (typeof v === 'object' && v !== null) for (const x of Object.values(v)) strings(x, out);
  return out;
}

/** A short "why it did not end normally" for a turn. */
export function turnProblem(run: TurnRun, limitMs: number): string | undefined {
  if (run.timedOut)
    return `no answer within ${limitMs} ms${run.stopReason ? ` (answered ${run.stopReason} after session/cancel)` : ''}`;
  if (run.error !== undefined) return `session/prompt failed: ${JSON.stringify(run.error).slice(0, 200)}`;
  if (run.result?.error) return `${run.result.error.code}: ${run.result.error.message}`;
  if (!run.response) return 'no session/prompt response seen';
  return undefined;
}
