/**
 * session/prompt and session/cancel, Hermes 0.18.2 style (acp_adapter/server.py prompt()):
 * an idle /steer runs as a prompt (replaying a cancelled prompt with the guidance when there
 * is one); slash commands are answered locally; a prompt arriving mid-turn is answered at
 * once with "Queued for the next turn. (N queued)" and then run INSIDE the running request
 * (0.21: "Session is busy"). Usage is cumulative per agent instance and the response reports
 * it as it stood when the turn itself ended (queued turns show up in later responses); a
 * cancelled turn reports it too. Titles come after the first two exchanges, failed ones too.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { internalError, type Reply } from './rpc.js';
import { recordTurnCalls } from './rotate.js';
import {
  hermesMeta,
  persist,
  sendUpdate,
  sendUsageUpdate,
  sleep,
  textChunk,
  TOKENS_PER_CALL,
  type Ctx,
  type Runtime,
} from './runtime.js';
import { slashCommand } from './slash.js';
import { pyIso } from './state.js';
import { runTurn, type TurnInput } from './turn.js';

type Block = Record<string, unknown>;

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

/** What the fake model answers to the title request: the exchange's first words, or HERMES_EMU_TITLE. */
function titleFor(ctx: Ctx, userText: string): string {
  if (ctx.settings.title !== null) return ctx.settings.title;
  const words = userText
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 6)
    .join(' ')
    .replace(/[.,;:!?]+$/, '');
  return words ? words[0]!.toUpperCase() + words.slice(1) : '';
}

/**
 * maybe_auto_title: after an exchange with a final text (an error text counts), while the
 * live history holds at most two user messages and no title is stored; a title that
 * collides with another session's is skipped (the next exchange tries again).
 */
function scheduleTitle(ctx: Ctx, rt: Runtime, userText: string, finalText: string): (() => void) | undefined {
  if (!userText || !finalText || rt.rec.title) return undefined;
  if (rt.history.filter((m) => m.role === 'user').length > 2) return undefined;
  const title = titleFor(ctx, userText);
  if (!title) return undefined;
  // The exchange's row: a rotation during a later turn must not move the title to the continuation.
  const rec = rt.rec;
  return () => {
    setTimeout(() => {
      if (rec.title || rec !== rt.rec) return;
      if (ctx.store.titleTaken(title, rt.rec.id)) {
        ctx.log(`INFO agent.title_generator: title "${title}" collides with another session; skipped`);
        return;
      }
      rt.rec.title = title;
      persist(ctx, rt, false);
      sendUpdate(ctx, rt.acpId, {
        _meta: hermesMeta(ctx, rt),
        title,
        updatedAt: pyIso(Date.now()),
        sessionUpdate: 'session_info_update',
      });
    }, ctx.settings.titleDelayMs);
  };
}

const usageOf = (u: { input: number; output: number }) => ({
  cachedReadTokens: 0,
  inputTokens: u.input,
  outputTokens: u.output,
  thoughtTokens: 0,
  totalTokens: u.input + u.output,
});

export async function handlePrompt(ctx: Ctx, deps: PromptDeps, sessionId: string, blocks: Block[]): Promise<Reply> {
  const rt = deps.runtime(sessionId);
  if (!rt) return { result: { stopReason: 'refusal' } };
  const input = readInput(blocks);
  if (!input.hasContent) return { result: { stopReason: 'end_turn' } };

  // An idle /steer runs as a prompt: the cancelled prompt + the guidance, else the guidance alone.
  const steer = input.textOnly ? /^\/steer(?:\s+([\s\S]*))?$/.exec(input.text) : null;
  const guidance = steer?.[1]?.trim() ?? '';
  if (steer && guidance && !rt.running) {
    input.text = rt.interrupted
      ? `${rt.interrupted}\n\nUser correction/guidance after interrupt: ${guidance}`
      : guidance;
    rt.interrupted = '';
  } else if (input.textOnly && input.text.startsWith('/')) {
    const reply = slashCommand(ctx, rt, input.text, (id) => deps.switchModel(rt, id));
    if (reply !== null) {
      sendUpdate(ctx, sessionId, textChunk('agent_message_chunk', reply));
      sendUsageUpdate(ctx, rt);
      return { result: { stopReason: 'end_turn' } };
    }
  }

  if (rt.running) {
    if (ctx.settings.v21) throw internalError('Session is busy');
    // Only the text is queued (an image-only prompt becomes "[Image attachment]").
    rt.queue.push(input.text || '[Image attachment]');
    sendUpdate(
      ctx,
      sessionId,
      textChunk('agent_message_chunk', `Queued for the next turn. (${rt.queue.length} queued)`),
    );
    return { result: { stopReason: 'end_turn' } };
  }

  rt.running = true;
  rt.cancelled = false;
  rt.currentPrompt = input.text || '[Image attachment]';
  ctx.log(`INFO acp_adapter.server: Prompt on session ${sessionId}: ${input.text.slice(0, 100)}`);
  let title: (() => void) | undefined;
  let result;
  try {
    // Cold start: the first model call of a process assembles the huge prompt.
    if (ctx.started.prompts++ === 0 && ctx.settings.firstPromptDelayMs > 0) {
      ctx.log(`INFO acp_adapter.server: cold start: the first model call takes ${ctx.settings.firstPromptDelayMs} ms`);
      await sleep(ctx.settings.firstPromptDelayMs);
    }
    if (ctx.settings.turnDelayMs > 0) await sleep(ctx.settings.turnDelayMs);
    result = await runTurn(ctx, rt, input);
    rt.usage.input += result.calls * TOKENS_PER_CALL.input;
    rt.usage.output += result.calls * TOKENS_PER_CALL.output;
    persist(ctx, rt);
    recordTurnCalls(ctx, rt, result.calls - result.recorded);
    title = scheduleTitle(ctx, rt, input.text, result.finalText);
  } finally {
    rt.running = false;
    rt.currentPrompt = '';
  }
  const reported = { ...rt.usage };

  // Queued prompts run inside this request, echoed as user messages; this response comes last.
  while (rt.queue.length) {
    const next = rt.queue.shift()!;
    sendUpdate(ctx, sessionId, textChunk('user_message_chunk', next));
    const inner = await handlePrompt(ctx, deps, sessionId, [{ type: 'text', text: next }]);
    await inner.after?.();
  }

  if (rt.rotatedFrom) sendRotation(ctx, rt, rt.rotatedFrom);
  sendUsageUpdate(ctx, rt);
  const res: Record<string, unknown> = { stopReason: result.stop };
  if (result.usage) res.usage = usageOf(reported);
  return { result: res, after: title };
}

/** The head moved during the turn: the provenance names the previous head (recorded order: before usage_update and the response). */
function sendRotation(ctx: Ctx, rt: Runtime, previous: string): void {
  rt.rotatedFrom = null;
  const title = ctx.store.get(previous)?.title;
  const u: Record<string, unknown> = {
    _meta: hermesMeta(ctx, rt, previous),
    updatedAt: pyIso(Date.now()),
    sessionUpdate: 'session_info_update',
  };
  if (title) u.title = title;
  sendUpdate(ctx, rt.acpId, u);
}

export function handleCancel(ctx: Ctx, sessionId: string): void {
  const rt = ctx.runtimes.get(sessionId);
  if (!rt || !rt.running) return;
  // The next idle /steer replays this prompt with its guidance (Zed's interrupt salvage).
  if (rt.currentPrompt) rt.interrupted = rt.currentPrompt;
  rt.cancelled = true;
  for (const wake of [...rt.wake]) wake();
  ctx.log(`INFO acp_adapter.server: Cancelled session ${sessionId}`);
}
