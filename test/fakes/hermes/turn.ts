/**
 * A turn of the fake model: streaming, tool-call bookkeeping and usage counting. Each
 * model call costs 1200 input / 34 output tokens. 0.18.2 bugs reproduced: read/write
 * completions never sent live, open calls never closed (0.21 closes them as failed).
 */
import { randomUUID } from 'node:crypto';
import { pause, sendUpdate, textChunk, type Ctx, type Runtime } from './runtime.js';
import { SCRIPTS } from './scripts.js';
import * as T from './tools.js';

export interface TurnInput {
  text: string;
  images: string[];
  attachments: string[];
}

export interface TurnResult {
  stop: 'end_turn' | 'cancelled';
  calls: number;
  /** False on errors: the prompt response then carries no usage. */
  usage: boolean;
  finalText: string;
}

export interface ToolOutcome {
  result: string;
  status: 'completed' | 'failed';
  /** Whether Hermes sends the completion live (≤0.20 drops read_file/write_file ones). */
  live: boolean;
  extra?: T.Update[];
}

const SHORT: Record<string, string> = { read_file: 'read', write_file: 'write', terminal: 'terminal', todo: 'todo' };

export class Turn {
  calls = 0;
  afterTool = false;
  finalText = '';
  mid: string | undefined;
  readonly open = new Set<string>();
  constructor(
    readonly ctx: Ctx,
    readonly rt: Runtime,
  ) {}

  get cwd(): string {
    return this.rt.rec.cwd;
  }
  send(u: T.Update): void {
    sendUpdate(this.ctx, this.rt.rec.id, u);
  }
  modelCall(): void {
    this.calls++;
    this.mid = this.ctx.settings.v21 ? randomUUID() : undefined;
  }

  /** Word-by-word deltas; stops at a cancel and returns what was sent. */
  async stream(kind: string, text: string, delay: number): Promise<string> {
    const words = text.split(/(?<= )/);
    let sent = '';
    for (const [i, w] of words.entries()) {
      if (this.rt.cancelled) break;
      this.send(textChunk(kind, w, this.mid));
      sent += w;
      if (i < words.length - 1) await pause(this.rt, delay);
    }
    return sent;
  }

  async say(text: string, opts: { thought?: string; delay?: number } = {}): Promise<void> {
    this.modelCall();
    const delay = opts.delay ?? this.ctx.settings.delayMs;
    const reasoning = opts.thought ? await this.stream('agent_thought_chunk', opts.thought, delay) : '';
    const sent = await this.stream('agent_message_chunk', (this.afterTool ? '\n\n' : '') + text, delay);
    if (!sent.trim() && !reasoning.trim()) return;
    const msg: { role: 'assistant'; content: string; reasoning?: string } = { role: 'assistant', content: sent.trim() };
    if (reasoning.trim()) msg.reasoning = reasoning.trim();
    this.rt.rec.history.push(msg);
    this.finalText = sent.trim();
  }

  /** One model call that returns one tool call, then its execution. */
  async tool(name: string, args: Record<string, unknown>, exec: () => Promise<ToolOutcome>, autoDiff?: T.Diff): Promise<void> {
    this.modelCall();
    const live = T.liveToolId();
    const pid = `call_${SHORT[name] ?? 'mcp'}_${++this.rt.rec.toolSeq}`;
    this.send(T.toolStart(live, name, args, autoDiff));
    this.open.add(live);
    const out = await exec();
    if (out.live) {
      this.send(T.toolDone(live, name, out.result, out.status));
      this.open.delete(live);
    }
    for (const u of out.extra ?? []) this.send(u);
    this.rt.rec.history.push(
      { role: 'assistant', content: '', tool_calls: [{ id: pid, name, args }] },
      { role: 'tool', tool_call_id: pid, tool_name: name, content: out.result, status: out.status },
    );
    this.afterTool = true;
  }

  /** One whole (unstreamed) chunk: errors arrive this way. */
  once(text: string): void {
    this.send(textChunk('agent_message_chunk', text, this.ctx.settings.v21 ? randomUUID() : undefined));
  }

  /** Answers with an OFFERED optionId or null (deny): error, cancelled, timeout, unknown id. */
  async permission(params: Record<string, unknown>): Promise<string | null> {
    const offered = (params.options as Array<{ optionId: string }>).map((o) => o.optionId);
    const o = await this.ctx.peer.request('session/request_permission', { ...params, sessionId: this.rt.rec.id }, this.ctx.settings.permissionTimeoutMs);
    const outcome = 'result' in o ? (o.result as { outcome?: { outcome?: string; optionId?: string } } | null)?.outcome : undefined;
    return outcome?.outcome === 'selected' && offered.includes(String(outcome.optionId)) ? String(outcome.optionId) : null;
  }
}

/** Texts of user messages the model never answered (an overflow or 401 leaves them), merged with this one. */
function merged(t: Turn, text: string): string {
  const h = t.rt.rec.history;
  const prior: string[] = [];
  for (let i = h.length - 1; i >= 0; i--) {
    const m = h[i]!;
    if (m.role !== 'user') break;
    prior.unshift(m.content);
  }
  return [...prior, text].join(' ');
}

export async function runTurn(ctx: Ctx, rt: Runtime, input: TurnInput): Promise<TurnResult> {
  const t = new Turn(ctx, rt);
  const text = input.text.trim();
  let extra: Partial<TurnResult> | void = {};
  if (/^ERROR\b/.test(text)) {
    // An exception: Hermes returns the old history, so even the user message is not kept.
    t.once(`Error: ${text.replace(/^ERROR\W*/, '') || 'fake model failure'}`);
    return { stop: 'end_turn', calls: 0, usage: false, finalText: '' };
  }
  const echo = merged(t, text);
  rt.rec.history.push({ role: 'user', content: text || (input.images.length ? '[Image attachment]' : '') });
  const script = SCRIPTS.find(([re]) => re.test(text))?.[1];
  if (script) extra = await script(t, input);
  else if (input.images.length) {
    const what = `${input.images.length} image(s) (${input.images.join(', ')})`;
    await t.say(ctx.cfg.supportsVision
      ? `Image forwarded to the model: ${what}. I can see it.`
      : `Image described by the auxiliary model: ${what}. The model did not see it.`);
  } else {
    const att = input.attachments.length ? ` (attachments: ${input.attachments.join(', ')})` : '';
    await t.say(`Hello from the fake model! You said: ${echo}${att}`);
  }
  if (ctx.settings.v21) for (const id of t.open) t.send({ status: 'failed', toolCallId: id, sessionUpdate: 'tool_call_update' });
  return { stop: rt.cancelled ? 'cancelled' : 'end_turn', calls: t.calls, usage: true, finalText: t.finalText, ...(extra || {}) };
}
