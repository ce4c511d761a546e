/**
 * One prompt turn: records the prompt, runs the script with a TurnIo bound to the
 * connection, settles open tool calls, reports usage, and persists the session.
 */
import * as acp from '@agentclientprotocol/sdk';
import { DEMO_CONTEXT_SIZE, PERMISSION_OPTIONS } from './config.js';
import { runScript, summarize } from './script.js';
import type { StoredSession } from './store.js';
import { TurnCancelled, snippet, type Decision, type DemoTiming, type TurnIo } from './turn-io.js';

/** What a turn needs from the agent around it. */
export interface TurnEnv {
  timing: DemoTiming;
  /** After session/cancel, how long to wait for the client to answer a pending permission request. */
  graceMs: number;
  log: (line: string) => void;
  /** Persist the session (stamps updatedAt). */
  save: (s: Live) => void;
}

const tokens = (chars: number): number => Math.ceil(chars / 4);

/** Keep history files small: big binary blobs are replaced by a note. */
function storable(b: acp.ContentBlock): acp.ContentBlock {
  if ((b.type === 'image' || b.type === 'audio') && b.data.length > 256 * 1024) {
    return { type: 'text', text: `[${b.type} omitted from the demo history]` };
  }
  return b;
}

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((res) => {
    if (signal.aborted) return res();
    // Even a zero delay yields a macrotask, so a session/cancel can get in between chunks; an
    // immediate, not a timer, which Node makes wait at least 1 ms.
    const done = (): void => {
      if (t !== undefined) clearTimeout(t);
      else clearImmediate(i);
      signal.removeEventListener('abort', done);
      res();
    };
    const t = ms > 0 ? setTimeout(done, ms) : undefined;
    const i = ms > 0 ? undefined : setImmediate(done);
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface Live {
  data: StoredSession;
  turn: { ac: AbortController; done: Promise<unknown> } | null;
  /** Tool kinds the user chose "Always allow" for (this process only). */
  always: Set<string>;
}

/** `ac` aborts on session/cancel, session/close or connection loss. */
export async function runTurn(
  env: TurnEnv,
  client: acp.AgentContext,
  s: Live,
  params: acp.PromptRequest,
  ac: AbortController,
): Promise<acp.PromptResponse> {
  const { timing, graceMs, log, save } = env;
  const d = s.data;
  const sessionId = d.sessionId;
  const n = ++d.turns;
  const prefix = `${sessionId.slice(0, 8)}-t${n}`;
  let msgK = 0;
  let callK = 0;
  let outChars = 0;
  const open = new Set<string>();
  for (const b of params.prompt) d.history.push({ sessionUpdate: 'user_message_chunk', content: storable(b) });
  save(s);

  const send = async (update: acp.SessionUpdate, record = true): Promise<void> => {
    if (update.sessionUpdate === 'tool_call' || update.sessionUpdate === 'tool_call_update') {
      if (update.status === 'completed' || update.status === 'failed') open.delete(update.toolCallId);
      else if (update.sessionUpdate === 'tool_call') open.add(update.toolCallId);
    } else if (
      (update.sessionUpdate === 'agent_message_chunk' || update.sessionUpdate === 'agent_thought_chunk') &&
      update.content.type === 'text'
    ) {
      outChars += update.content.text.length;
    }
    if (record) d.history.push(update);
    await client.notify(acp.methods.client.session.update, { sessionId, update });
  };

  const permit = async (toolCall: acp.ToolCallUpdate): Promise<Decision> => {
    if (ac.signal.aborted) return 'cancelled';
    const kind = toolCall.kind ?? 'other';
    if (d.mode === 'auto' || s.always.has(kind)) return 'allow';
    // ACP v1: after session/cancel the client answers `cancelled`; stop waiting if it never does.
    const giveUp = new AbortController();
    let grace: NodeJS.Timeout | undefined;
    const onCancel = (): void => {
      grace = setTimeout(() => giveUp.abort(), graceMs);
    };
    ac.signal.addEventListener('abort', onCancel, { once: true });
    try {
      const res = await client.request(
        acp.methods.client.session.requestPermission,
        { sessionId, toolCall, options: PERMISSION_OPTIONS },
        { cancellationSignal: giveUp.signal, stopWaitingOnCancel: true },
      );
      if (ac.signal.aborted) return 'cancelled';
      if (res.outcome.outcome !== 'selected') return 'reject';
      if (res.outcome.optionId === 'always') {
        s.always.add(kind);
        return 'allow';
      }
      return res.outcome.optionId === 'allow' ? 'allow' : 'reject';
    } catch (e) {
      if (ac.signal.aborted) return 'cancelled';
      log(`permission request failed, treating as reject: ${String(e)}`);
      return 'reject';
    } finally {
      clearTimeout(grace);
      ac.signal.removeEventListener('abort', onCancel);
    }
  };

  const io: TurnIo = {
    cwd: d.cwd,
    model: d.model,
    mode: d.mode,
    timing,
    signal: ac.signal,
    send: (u, o) => send(u, !o?.transient),
    messageId: () => `${prefix}-m${++msgK}`,
    toolCallId: () => `${prefix}-call${++callK}`,
    permit,
    pause: (ms) => pause(ms, ac.signal),
  };

  let stopReason: acp.StopReason = 'end_turn';
  let failure: unknown;
  try {
    stopReason = await runScript(io, params.prompt);
  } catch (e) {
    if (!(e instanceof TurnCancelled) && !ac.signal.aborted) failure = e;
  }
  // ACP: once the client cancelled, the answer is `cancelled`, whatever happened meanwhile.
  if (ac.signal.aborted) stopReason = 'cancelled';
  try {
    for (const id of [...open]) {
      await send({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status: 'failed',
        content: [
          {
            type: 'content',
            content: { type: 'text', text: ac.signal.aborted ? 'Cancelled.' : 'Stopped by an error.' },
          },
        ],
      });
    }
    const p = summarize(params.prompt);
    const inputTokens = tokens(p.chars) + 100 * (p.images + p.audio) + 50 * p.resources;
    const outputTokens = tokens(outChars);
    d.usedTokens += inputTokens + outputTokens;
    if (d.title === null && failure === undefined) {
      d.title = `Demo: ${snippet(p.text, 40) || 'untitled'}`;
      await send({ sessionUpdate: 'session_info_update', title: d.title });
    }
    await send({ sessionUpdate: 'usage_update', used: d.usedTokens, size: DEMO_CONTEXT_SIZE }, false);
    if (failure !== undefined) throw failure;
    return {
      stopReason,
      usage: { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
    } as acp.PromptResponse;
  } finally {
    save(s); // also when the connection died mid-turn: keep what was streamed
  }
}
