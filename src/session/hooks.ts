import type { ContentBlock, Thread, ToolCallEntry } from '../thread/types.js';
import type { ModelRowNormalizer } from './catalog.js';

/**
 * Quirk hooks: the session core is provider-agnostic; a provider (src/providers/) switches these on
 * for the agents that need them (Hermes first). Every hook is optional and the defaults are the ACP spec.
 */
export interface TurnSummary {
  turnId: string;
  stopReason: string;
  /** The assistant text streamed in this turn (concatenated). */
  text: string;
  cancelled: boolean;
  /** Tool calls this turn produced (a turn with no text and no tool call said nothing at all). */
  toolCalls?: number;
}

export interface TurnClassification {
  /** Stable code: 'context_overflow', 'auth_error', 'agent_error', … */
  code: string;
  message: string;
  data?: unknown;
}

export interface PromptPlan {
  blocks: ContentBlock[];
  /** Visible notices for what was changed or withheld (e.g. an image the agent cannot take). */
  notices: { code: string; text: string }[];
}

export interface PermissionLinkContext {
  thread: Thread;
  /** Tool calls of the running turn that are still open, oldest first. */
  openToolCalls: ToolCallEntry[];
}

export interface SessionHooks {
  /** How the agent reports `usage` in prompt responses. Hermes: cumulative per agent instance. */
  usageMode?: 'per-turn' | 'cumulative';
  /** Normalizes legacy model rows into catalog options (Hermes' catalog rules). */
  modelRows?: ModelRowNormalizer;
  /** Settle still-open tool calls when a turn ends (default true; Hermes never closes read/write). */
  settleOnTurnEnd?: boolean;
  /**
   * A history replay (session/load|resume) sends each message as one whole chunk, without a
   * messageId (Hermes ≤0.20): consecutive chunks there are separate messages (whole-messages.ts).
   */
  replayWholeMessages?: boolean;
  /** A `{}` answer to session/load with no replay means "not found" (Hermes; off by default: `{}` is a valid answer). */
  loadEmptyMeansNotFound?: boolean;
  /** Rewrite or drop (null) an update before the reducer sees it. */
  mapUpdate?(update: {
    sessionUpdate: string;
    [k: string]: unknown;
  }): { sessionUpdate: string; [k: string]: unknown } | null;
  /** Adjust the prompt for what the agent accepts (images without promptCapabilities.image, …). */
  mapPrompt?(blocks: ContentBlock[], caps: { image: boolean; audio: boolean; embeddedContext: boolean }): PromptPlan;
  /** Classify a finished turn whose failure the agent only signalled as text (Hermes overflow, HTTP 401). */
  classifyTurn?(turn: TurnSummary): TurnClassification | undefined;
  /** Map a permission request's synthetic toolCallId onto the announced tool call it concerns. */
  linkPermission?(
    toolCall: { toolCallId: string; [k: string]: unknown },
    ctx: PermissionLinkContext,
  ): string | undefined;
  /**
   * Close and resume the agent's session before the prompt that follows a failed or cancelled turn,
   * or one with a rejected permission (the Claude adapters leave their prompt stream one message
   * behind: the next prompt returns at once, with nothing or with the previous answer).
   */
  reopenAfterFailedTurn?: boolean;
  /** After a successful model switch (Hermes drops MCP servers and resets usage on set_model). */
  afterSetModel?(ctx: { reload: () => Promise<void>; resetUsage: () => void }): Promise<void>;
}

/** Default prompt mapping: withhold block types the agent did not advertise, with a visible notice. */
export function defaultMapPrompt(
  blocks: ContentBlock[],
  caps: { image: boolean; audio: boolean; embeddedContext: boolean },
): PromptPlan {
  const out: ContentBlock[] = [];
  const notices: PromptPlan['notices'] = [];
  for (const b of blocks) {
    if (b.type === 'image' && !caps.image) {
      notices.push({ code: 'image_withheld', text: 'The agent does not accept images; the image was not sent.' });
    } else if (b.type === 'audio' && !caps.audio) {
      notices.push({ code: 'audio_withheld', text: 'The agent does not accept audio; the audio was not sent.' });
    } else if (b.type === 'resource' && !caps.embeddedContext) {
      const r = (b as { resource?: { uri?: string; text?: string } }).resource;
      // Embedded context falls back to a link, which every agent must accept.
      if (r?.uri) out.push({ type: 'resource_link', uri: r.uri, name: r.uri.split('/').pop() || r.uri });
      else if (typeof r?.text === 'string') out.push({ type: 'text', text: r.text });
      notices.push({
        code: 'resource_as_link',
        text: 'The agent does not accept embedded files; sent a link instead.',
      });
    } else out.push(b);
  }
  return { blocks: out, notices };
}
