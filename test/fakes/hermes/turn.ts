/**
 * A turn of the fake model: streaming, tool-call bookkeeping and usage counting. Each
 * COMPLETED model call costs 1200 input / 34 output tokens; failed calls (401, 400,
 * overflow) and calls cut off by a cancel count nothing. 0.18.2 bugs reproduced: read/write
 * completions never sent live, open calls never closed (0.21 closes them as failed).
 */
import { randomUUID } from 'node:crypto';
import { append, mergeUsers } from './history.js';
import { maskStaleOverflow, pickKeyword, thinkingOf } from './model.js';
import { pause, sendUpdate, textChunk, type Ctx, type Runtime } from './runtime.js';
import { runScript } from './scripts.js';
import * as T from './tools.js';

export interface TurnInput {
  text: string;
  images: string[];
  attachments: string[];
}

export interface TurnResult {
  stop: 'end_turn' | 'cancelled';
  /** Completed model calls, the ones usage counts. */
  calls: number;
  /** Of those, the ones already written to state.db (a rotation records them on the ended row). */
  recorded: number;
  /** False on errors: the prompt response then carries no usage. */
  usage: boolean;
  /** What Hermes calls final_response (an error's text too): a title is made from it. */
  finalText: string;
}

export interface ToolOutcome {
  /** The raw result, as the model sees it (JSON text for built-in tools). */
  raw: string;
  /** Whether Hermes sends the completion live (≤0.20 drops read_file/write_file ones). */
  live: boolean;
  extra?: T.Update[];
}

const SHORT: Record<string, string> = { read_file: 'read', write_file: 'write', terminal: 'terminal', todo: 'todo' };

export class Turn {
  calls = 0;
  recorded = 0;
  afterTool = false;
  finalText = '';
  /** The last tool result the model saw (steer injection included). */
  lastRaw = '';
  /** An error text ended the turn (no usage). */
  failed: string | null = null;
  /** An exception: the agent keeps the history it had before the turn. */
  raised = false;
  mid: string | undefined;
  /** `[[think: …]]` in the request: streamed as reasoning before every answer. */
  thinking: string | undefined;
  readonly open = new Set<string>();
  constructor(
    readonly ctx: Ctx,
    readonly rt: Runtime,
  ) {}

  get cwd(): string {
    return this.rt.rec.cwd;
  }
  send(u: T.Update): void {
    sendUpdate(this.ctx, this.rt.acpId, u);
  }
  /** Starts a model call; false once cancelled (no call is made then). */
  private modelCall(): boolean {
    if (this.rt.cancelled) return false;
    this.rt.promptBuilt = true;
    this.mid = this.ctx.settings.v21 ? randomUUID() : undefined;
    return true;
  }

  /** Word-by-word deltas (or the given pieces); stops at a cancel and returns what was sent. */
  async stream(kind: string, text: string, delay: number, pieces = text.split(/(?<= )/)): Promise<string> {
    let sent = '';
    for (const [i, w] of pieces.entries()) {
      if (this.rt.cancelled) break;
      this.send(textChunk(kind, w, this.mid));
      sent += w;
      if (i < pieces.length - 1) await pause(this.rt, delay);
    }
    return sent;
  }

  async say(text: string, opts: { thought?: string; delay?: number; pieces?: string[] } = {}): Promise<void> {
    if (!this.modelCall()) return;
    const delay = opts.delay ?? this.ctx.settings.delayMs;
    const thought = opts.thought ?? this.thinking;
    const reasoning = thought ? await this.stream('agent_thought_chunk', thought, this.ctx.settings.delayMs) : '';
    const prefix = this.afterTool ? '\n\n' : '';
    const sent = await this.stream(
      'agent_message_chunk',
      prefix + text,
      delay,
      opts.pieces ? [prefix + opts.pieces[0], ...opts.pieces.slice(1)] : undefined,
    );
    if (!this.rt.cancelled) this.calls++;
    if (!sent.trim() && !reasoning.trim()) return;
    const msg: { role: 'assistant'; content: string; reasoning?: string } = { role: 'assistant', content: sent.trim() };
    if (reasoning.trim()) msg.reasoning = reasoning.trim();
    append(this.rt, msg);
    this.finalText = sent.trim();
  }

  /** One model call that returns one tool call, then its execution. */
  async tool(
    name: string,
    args: Record<string, unknown>,
    exec: () => Promise<ToolOutcome>,
    autoDiff?: T.Diff,
  ): Promise<void> {
    if (!this.modelCall()) return;
    this.calls++;
    const live = T.liveToolId();
    const pid = `call_${SHORT[name] ?? 'mcp'}_${++this.rt.rec.toolSeq}`;
    this.send(T.toolStart(live, name, args, autoDiff));
    this.open.add(live);
    const out = await exec();
    if (out.live) {
      this.send(T.toolDone(live, name, out.raw, args));
      this.open.delete(live);
    }
    for (const u of out.extra ?? []) this.send(u);
    // A /steer sent while the tool ran reaches the model inside the result (not the live frame).
    let raw = out.raw;
    if (this.rt.pendingSteer !== null) {
      raw += T.steerNote(this.rt.pendingSteer);
      this.rt.pendingSteer = null;
    }
    append(
      this.rt,
      { role: 'assistant', content: '', tool_calls: [{ id: pid, name, args }] },
      { role: 'tool', tool_call_id: pid, tool_name: name, content: raw },
    );
    this.lastRaw = raw;
    this.afterTool = true;
  }

  /** One whole (unstreamed) chunk: errors arrive this way. */
  once(text: string): void {
    this.send(textChunk('agent_message_chunk', text, this.ctx.settings.v21 ? randomUUID() : undefined));
  }

  /** A failed call: its text is the turn's answer; the user message stays for the next prompt. */
  fail(text: string): void {
    this.once(text);
    this.failed = text;
    this.finalText = text;
  }

  /**
   * An exception inside the agent: `Error: …` is the answer and the agent returns the history it
   * was given (nothing of this turn in memory; the user row already written to disk stays).
   */
  exception(text: string): void {
    this.fail(text);
    this.raised = true;
  }

  /** Answers with an OFFERED optionId or null (deny): error, cancelled, timeout, unknown id. */
  async permission(params: Record<string, unknown>): Promise<string | null> {
    const offered = (params.options as Array<{ optionId: string }>).map((o) => o.optionId);
    const { options, ...rest } = params;
    const o = await this.ctx.peer.request(
      'session/request_permission',
      { options, sessionId: this.rt.acpId, ...rest },
      this.ctx.settings.permissionTimeoutMs,
    );
    const outcome =
      'result' in o ? (o.result as { outcome?: { outcome?: string; optionId?: string } } | null)?.outcome : undefined;
    return outcome?.outcome === 'selected' && offered.includes(String(outcome.optionId))
      ? String(outcome.optionId)
      : null;
  }
}

export async function runTurn(ctx: Ctx, rt: Runtime, input: TurnInput): Promise<TurnResult> {
  const t = new Turn(ctx, rt);
  const text = input.text.trim();
  const before = structuredClone(rt.history);
  const newest = text || (input.images.length ? '[Image attachment]' : '');
  append(rt, { role: 'user', content: newest });
  if (/^ERROR\b/.test(text)) {
    t.exception(`Error: ${text.replace(/^ERROR\W*/, '') || 'fake model failure'}`);
    rt.history = before;
    return { stop: 'end_turn', calls: 0, recorded: 0, usage: false, finalText: t.finalText };
  }
  // The request carries the merged user message: earlier failed prompts + this one.
  const userText = mergeUsers(rt.history);
  const steering = ctx.settings.overflowReal ? userText : maskStaleOverflow(userText, newest);
  t.thinking = thinkingOf(steering);
  await runScript(t, pickKeyword(steering), input, userText);
  if (t.raised) rt.history = before;
  rt.pendingSteer = null; // a steer no tool result picked up is lost
  if (ctx.settings.v21)
    for (const id of t.open) t.send({ status: 'failed', toolCallId: id, sessionUpdate: 'tool_call_update' });
  return {
    stop: rt.cancelled ? 'cancelled' : 'end_turn',
    calls: t.calls,
    recorded: t.recorded,
    usage: t.failed === null,
    finalText: t.finalText,
  };
}
