/**
 * Hermes' session-core quirk switches (specs/hermes-acp.md):
 * - usage in prompt responses is cumulative per agent instance → per-turn deltas;
 * - legacy model rows with duplicated `custom:` entries → hermesModelRows;
 * - `session/load` answering `{}` means "not found"; its replay sends each message whole, with no
 *   messageId, so consecutive replayed chunks are separate messages;
 * - errors arrive as TEXT + end_turn: overflow, `HTTP 401`, `Error: …` → classified turns;
 * - permission requests carry synthetic ids (perm-check-N, edit-approval-N) → linked to the
 *   announced tool call by command / path;
 * - set_model drops the session's MCP servers and resets usage → reload + reset;
 * - images reach the model only when config.yaml marks it vision-capable → say so.
 */
import { defaultMapPrompt, type SessionHooks, type TurnClassification, type TurnSummary } from '../../session/hooks.js';
import { hermesModelRows } from './catalog.js';
import type { ToolCallEntry } from '../../thread/types.js';
import { TalariaError } from '../../protocol/errors.js';
import { RequestError } from '../../protocol/wire-error.js';

export interface HermesHookOptions {
  /** From the profile's config.yaml (`model.supports_vision`); undefined = unknown. */
  supportsVision?: boolean;
  /** Load the session again after set_model (≤0.20 drops its MCP servers; default true). */
  reloadAfterSetModel?: boolean;
}

export const OVERFLOW_TEXT = /^Context length exceeded\b/;
/** Hermes' reply to `/steer` during a turn (0.18.2). */
export const STEER_ACK = /^⏩ Steer queued for the active turn: /;
const HTTP_ERROR = /^HTTP (\d{3})\b:?/;

/** The last paragraph of the turn's text: Hermes' error chunk comes last, on its own. */
function lastParagraph(text: string): string {
  const parts = text.trim().split(/\n\s*\n/);
  return (parts[parts.length - 1] ?? '').trim();
}

export function classifyHermesTurn(turn: TurnSummary): TurnClassification | undefined {
  if (turn.cancelled) return undefined;
  const last = lastParagraph(turn.text);
  if (OVERFLOW_TEXT.test(last)) {
    return {
      code: 'context_overflow',
      message: `The conversation no longer fits the model's context: ${last}`,
      data: { agentText: last },
    };
  }
  const http = HTTP_ERROR.exec(last);
  if (http) {
    const status = Number(http[1]);
    if (status === 401 || status === 403) {
      return {
        code: 'auth_error',
        message: `The model provider rejected Hermes' key (${last}). Run \`hermes setup\` (or \`hermes model\`) to fix the key.`,
        data: { status, agentText: last },
      };
    }
    if (status >= 400)
      return { code: 'agent_error', message: `The model provider answered ${last}`, data: { status, agentText: last } };
  }
  // An exception: the whole turn is one `Error: …` chunk (nothing else was streamed).
  const whole = turn.text.trim();
  if (whole.startsWith('Error: ') && !whole.includes('\n\n')) {
    return { code: 'agent_error', message: `Hermes failed: ${whole.slice(7)}`, data: { agentText: whole } };
  }
  return undefined;
}

const SYNTHETIC = /^(perm-check|edit-approval)-\d+$/;

function str(v: unknown): string | undefined {
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The command a dangerous-command request is about. */
function requestCommand(tc: Record<string, unknown>): string | undefined {
  const raw = (tc.rawInput ?? {}) as Record<string, unknown>;
  if (str(raw.command)) return raw.command as string;
  // Title is "<description>: <command>".
  const title = str(tc.title);
  const i = title?.indexOf(': ') ?? -1;
  return title && i > 0 ? title.slice(i + 2) : undefined;
}

/** The path an edit approval is about. */
function requestPath(tc: Record<string, unknown>): string | undefined {
  const raw = (tc.rawInput ?? {}) as { arguments?: { path?: unknown }; path?: unknown };
  const fromRaw = str(raw.arguments?.path) ?? str(raw.path);
  if (fromRaw) return fromRaw;
  for (const c of Array.isArray(tc.content) ? tc.content : []) {
    const p = str((c as { path?: unknown })?.path);
    if (p) return p;
  }
  const title = str(tc.title);
  return title?.startsWith('Approve edit: ') ? title.slice('Approve edit: '.length) : undefined;
}

function shellCommandOf(call: ToolCallEntry): string | undefined {
  const raw = (call.rawInput ?? {}) as { command?: unknown };
  if (str(raw.command)) return raw.command as string;
  if (call.title.startsWith('terminal: ')) return call.title.slice('terminal: '.length);
  return undefined;
}

function touchesPath(call: ToolCallEntry, path: string): boolean {
  if (call.locations.some((l) => l.path === path)) return true;
  const i = call.title.indexOf(': ');
  return i > 0 && call.title.slice(i + 2) === path;
}

/**
 * The announced tool call a synthetic permission request concerns: the oldest open call with the
 * same shell command (perm-check-N) or touching the same path with an edit (edit-approval-N) that
 * is not already waiting on another permission.
 */
export function linkHermesPermission(
  toolCall: { toolCallId: string; [k: string]: unknown },
  ctx: { openToolCalls: ToolCallEntry[] },
): string | undefined {
  const id = toolCall.toolCallId;
  if (!SYNTHETIC.test(id)) return undefined;
  const free = ctx.openToolCalls.filter((c) => c.toolCallId !== id && c.permission?.status !== 'pending');
  if (id.startsWith('perm-check-')) {
    const cmd = requestCommand(toolCall);
    if (!cmd) return undefined;
    return free.find((c) => (c.toolKind === 'execute' || c.toolKind === undefined) && shellCommandOf(c) === cmd)
      ?.toolCallId;
  }
  const path = requestPath(toolCall);
  if (!path) return undefined;
  return free.find((c) => (c.toolKind === 'edit' || c.toolKind === undefined) && touchesPath(c, path))?.toolCallId;
}

/** The `_meta.hermes.sessionProvenance.acpSessionId` of a resume result, when it names another session. */
export function hermesStrayResumeId(result: unknown, requestedId: string): string | undefined {
  const r = (result ?? {}) as {
    sessionId?: unknown;
    _meta?: { hermes?: { sessionProvenance?: { acpSessionId?: unknown } } };
  };
  const acp = r._meta?.hermes?.sessionProvenance?.acpSessionId;
  if (typeof acp === 'string' && acp !== '' && acp !== requestedId) return acp;
  if (typeof r.sessionId === 'string' && r.sessionId !== '' && r.sessionId !== requestedId) return r.sessionId;
  return undefined;
}

/**
 * `session/new` without a configured provider fails -32603 with "No LLM provider configured…"
 * in data.details: say what to do instead.
 */
export function hermesSetupError(error: unknown, o: { profile?: string }): Error | undefined {
  if (!(error instanceof RequestError)) return undefined;
  const detail = `${error.message} ${JSON.stringify(error.data ?? '')}`;
  if (!/No LLM provider configured|hermes setup|hermes model/i.test(detail)) return undefined;
  const p = o.profile && o.profile !== 'default' ? ` -p ${o.profile}` : '';
  return new TalariaError(
    'auth_required',
    `Hermes has no model provider configured. Run \`hermes${p} setup\` to pick a model and add a key.`,
    {
      rpcCode: error.code,
      data: error.data,
      fix: `hermes${p} setup`,
    },
  );
}

export function hermesHooks(o: HermesHookOptions = {}): SessionHooks {
  return {
    usageMode: 'cumulative',
    modelRows: hermesModelRows,
    settleOnTurnEnd: true,
    loadEmptyMeansNotFound: true,
    // _replay_session_history sends every stored message whole, as one id-less chunk.
    replayWholeMessages: true,
    mapPrompt(blocks, caps) {
      const plan = defaultMapPrompt(blocks, caps);
      if (o.supportsVision === false && plan.blocks.some((b) => b.type === 'image')) {
        plan.notices.push({
          code: 'image_described',
          text: "Hermes' model is not marked vision-capable (model.supports_vision in config.yaml): Hermes will send the model a text description of the image instead of the image.",
        });
      }
      return plan;
    },
    // Hermes' answer to a /steer Talaria sent lands in the running turn's text stream (no
    // messageId): it is not the model's, so it is not shown.
    mapUpdate: (u) =>
      u.sessionUpdate === 'agent_message_chunk' &&
      STEER_ACK.test(String((u.content as { text?: unknown } | undefined)?.text ?? ''))
        ? null
        : u,
    classifyTurn: classifyHermesTurn,
    linkPermission: linkHermesPermission,
    async afterSetModel({ reload, resetUsage }) {
      // set_model rebuilt Hermes' agent: its usage counters restarted and (≤0.20) it forgot the
      // session's MCP servers; loading the session again with the same servers registers them.
      resetUsage();
      if (o.reloadAfterSetModel !== false) await reload();
    },
  };
}
