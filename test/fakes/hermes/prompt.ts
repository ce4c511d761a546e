/**
 * session/prompt and session/cancel, Hermes 0.18.2 style: slash commands answered
 * locally; a prompt arriving mid-turn is answered at once with "Queued for the next
 * turn. (N queued)" and then run INSIDE the running request (0.21: "Session is busy");
 * usage is cumulative per agent instance; the title arrives after the first response.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { internalError, type Reply } from './rpc.js';
import { hermesMeta, persist, sendUpdate, sendUsageUpdate, textChunk, TOKENS_PER_CALL, type Ctx, type Runtime } from './runtime.js';
import { slashCommand } from './slash.js';
import { pyIso } from './state.js';
import { runTurn, type TurnInput } from './turn.js';

type Block = Record<string, unknown>;

const ZERO_USAGE = { cachedReadTokens: 0, inputTokens: 0, outputTokens: 0, thoughtTokens: 0, totalTokens: 0 };
const MAX_RESOURCE = 512 * 1024;

export interface PromptDeps {
  runtime: (id: string) => Runtime | null;
  switchModel: (rt: Runtime, modelId: string) => { provider: string; model: string };
}

function readInput(blocks: Block[]): TurnInput & { textOnly: boolean; hasContent: boolean } {
  const texts: string[] = [];
  const images: string[] = [];
  const attachments: string[] = [];
  for (const b of blocks) {
    if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
    else if (b.type === 'image') images.push(String(b.mimeType ?? 'image/png'));
    else if (b.type === 'resource_link' && typeof b.uri === 'string') {
      // file:// links are inlined when ≤512 KiB; the fake model only mentions them.
      const path = b.uri.startsWith('file://') ? fileURLToPath(b.uri) : null;
      const size = path && existsSync(path) ? statSync(path).size : -1;
      if (path && size >= 0 && size <= MAX_RESOURCE) readFileSync(path);
      attachments.push(String(b.name ?? (path ? basename(path) : b.uri)));
    } else if (b.type === 'resource') {
      const r = (b.resource ?? {}) as Block;
      attachments.push(basename(String(r.uri ?? 'resource')));
    }
  }
  const text = texts.join('\n').trim();
  return {
    text,
    images,
    attachments,
    textOnly: blocks.every((b) => b.type === 'text'),
    hasContent: Boolean(text) || images.length + attachments.length > 0,
  };
}

/** Title from the first user message (or HERMES_EMU_TITLE); skipped when it collides. */
const titled = new Set<string>();

function scheduleTitle(ctx: Ctx, rt: Runtime): (() => void) | undefined {
  if (rt.rec.title || titled.has(rt.rec.id)) return undefined;
  titled.add(rt.rec.id);
  const first = rt.rec.history.find((m) => m.role === 'user');
  const words = (first?.content ?? '').split(/\s+/).filter(Boolean).slice(0, 6).join(' ').replace(/[.,;:!?]+$/, '');
  const title = ctx.settings.title ?? (words ? words[0]!.toUpperCase() + words.slice(1) : '');
  if (!title) return undefined;
  return () => {
    setTimeout(() => {
      if (ctx.store.titleTaken(title, rt.rec.id)) {
        ctx.log(`INFO agent.title_generator: title "${title}" collides with another session; skipped`);
        return;
      }
      rt.rec.title = title;
      persist(ctx, rt, false);
      sendUpdate(ctx, rt.rec.id, { _meta: hermesMeta(rt.rec.id), title, updatedAt: pyIso(Date.now()), sessionUpdate: 'session_info_update' });
    }, ctx.settings.titleDelayMs);
  };
}

export async function handlePrompt(ctx: Ctx, deps: PromptDeps, sessionId: string, blocks: Block[]): Promise<Reply> {
  const rt = deps.runtime(sessionId);
  if (!rt) return { result: { stopReason: 'refusal' } };
  const input = readInput(blocks);
  if (!input.hasContent) return { result: { stopReason: 'end_turn' } };

  // /steer on an idle session runs its text as a normal prompt.
  const steer = /^\/steer\s+(\S[\s\S]*)$/.exec(input.text);
  if (input.textOnly && steer && !rt.running) input.text = steer[1]!.trim();
  else if (input.textOnly && input.text.startsWith('/')) {
    const reply = slashCommand(ctx, rt, input.text, (id) => deps.switchModel(rt, id));
    if (reply !== null) {
      sendUpdate(ctx, sessionId, textChunk('agent_message_chunk', reply));
      sendUsageUpdate(ctx, rt);
      return { result: { stopReason: 'end_turn' } };
    }
  }

  if (rt.running) {
    if (ctx.settings.v21) throw internalError('Session is busy');
    rt.queue.push(blocks);
    sendUpdate(ctx, sessionId, textChunk('agent_message_chunk', `Queued for the next turn. (${rt.queue.length} queued)`));
    return { result: { stopReason: 'end_turn' } };
  }

  rt.running = true;
  rt.cancelled = false;
  ctx.log(`INFO acp_adapter.server: Prompt on session ${sessionId}: ${input.text.slice(0, 100)}`);
  let title: (() => void) | undefined;
  let result;
  try {
    result = await runTurn(ctx, rt, input);
    if (result.usage) {
      rt.usage.input += result.calls * TOKENS_PER_CALL.input;
      rt.usage.output += result.calls * TOKENS_PER_CALL.output;
    }
    persist(ctx, rt);
    if (result.finalText) title = scheduleTitle(ctx, rt);
  } finally {
    rt.running = false;
  }

  // Queued prompts run inside this request, echoed as user messages; this response comes last.
  while (rt.queue.length) {
    const next = rt.queue.shift()!;
    const echo = readInput(next as Block[]).text || '[Image attachment]';
    sendUpdate(ctx, sessionId, textChunk('user_message_chunk', echo));
    const inner = await handlePrompt(ctx, deps, sessionId, next as Block[]);
    await inner.after?.();
  }

  sendUsageUpdate(ctx, rt);
  const res: Record<string, unknown> = { stopReason: result.stop };
  if (result.usage) {
    const { input: i, output: o } = rt.usage;
    res.usage = result.stop === 'cancelled' ? ZERO_USAGE : { cachedReadTokens: 0, inputTokens: i, outputTokens: o, thoughtTokens: 0, totalTokens: i + o };
  }
  return { result: res, after: title };
}

export function handleCancel(ctx: Ctx, sessionId: string): void {
  const rt = ctx.runtimes.get(sessionId);
  if (!rt || !rt.running) return;
  rt.cancelled = true;
  for (const wake of [...rt.wake]) wake();
  ctx.log(`INFO acp_adapter.server: Cancelled session ${sessionId}`);
}
