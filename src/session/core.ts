/**
 * What a Session is made of, and what its parts may use of it. Session (session.ts, on
 * session-stream.ts and session-base.ts) owns the thread, state, events and frames; the parts — thread changes as events (thread-events.ts),
 * turns and queue (turns.ts), cancel settlement (cancel-settle.ts), permission bridge
 * (permission-bridge.ts), models and modes (model-mode.ts), reopen after a failed turn
 * (reopen.ts), error shapes (errors.ts) — each get this narrow view. Frames reach a session
 * from its connection's router (router.ts).
 */
import type { TerminalView } from '../protocol/client-terminal.js';
import { TalariaError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import type { PermissionBroker } from '../permission/broker.js';
import type { PermissionMode, PermissionRule } from '../permission/types.js';
import type { ContentBlock, Thread, ThreadAction } from '../thread/types.js';
import type { Catalog } from './catalog.js';
import type { EventName, EventOf } from './events.js';
import type { SessionHooks } from './hooks.js';
import type { SessionEvent as StateEvent, SessionState } from './state.js';

/** What a session needs from its connection (a narrow port, so tests and the host can supply their own). */
export interface SessionPort {
  request<T = unknown>(
    method: string,
    params: unknown,
    opts?: { signal?: AbortSignal; timeoutMs?: number },
  ): Promise<T>;
  /** Resolves once sent; rejects when it could not be (the session handles that, never leaks it). */
  notify(method: string, params: unknown): Promise<void>;
  readonly promptCaps: { image: boolean; audio: boolean; embeddedContext: boolean };
  /** The agent's initialize authMethods (an auth error lists them when its data has none). */
  readonly authMethods?: () => readonly unknown[];
  /**
   * The agent's own way to steer the running turn, when it has one for this moment (null: none;
   * the session then cancels and resends). `toolRunning`: a tool call of the turn is open.
   */
  steer?(text: string, o: { toolRunning: boolean }): Promise<SteerOutcome | null>;
  /** A terminal Talaria runs for the agent (its output for a client that cannot run terminals). */
  terminal?(sessionId: string, terminalId: string): TerminalView | undefined;
}

/** How the agent took a steer: claude-agent-acp's outcomes (`promptRequired`: send it as a prompt). */
export interface SteerOutcome {
  outcome: 'injected' | 'startedNewTurn' | 'promptRequired';
  /** The agent's mechanism, for the thread ('_session/steering', '/steer'). */
  via: string;
}

export interface SessionInit {
  id: string;
  cwd: string;
  additionalDirectories?: string[];
  mcpServers?: unknown[];
  port: SessionPort;
  broker: PermissionBroker;
  hooks?: SessionHooks;
  logger: Logger;
  permissionMode?: PermissionMode;
  /** Rules shared by every session of the client (user config); session rules come after them. */
  baseRules?: () => PermissionRule[];
  now?: () => number;
  onClosed?: (s: { readonly id: string }) => void;
  /** Largest prompt taken (text and data bytes; default DEFAULT_MAX_PROMPT_BYTES). */
  maxPromptBytes?: number;
}

/**
 * A prompt larger than this is refused before anything is sent or stored (8 MiB: far past what an
 * agent's context takes; config.json `maxPromptBytes` changes it).
 */
export const DEFAULT_MAX_PROMPT_BYTES = 8 * 1024 * 1024;

/** Throws the refusal for a prompt over `limit` bytes (the one check every face's prompt passes). */
export function checkPromptSize(blocks: readonly ContentBlock[], limit: number): void {
  const bytes = promptBytes(blocks);
  if (bytes <= limit) return;
  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MiB`;
  throw Object.assign(
    new TalariaError(
      'invalid_argument',
      `the prompt is ${mb(bytes)}; prompts over ${mb(limit)} are refused (nothing was sent)`,
      { bytes, limit },
    ),
    {
      fix: 'Send less (a file path instead of its contents), or raise maxPromptBytes in config.json.',
    },
  );
}

/** Bytes of a prompt's text and data (images, audio, embedded resources). */
export function promptBytes(blocks: readonly ContentBlock[]): number {
  let n = 0;
  const add = (v: unknown) => {
    if (typeof v === 'string') n += Buffer.byteLength(v);
  };
  for (const b of blocks as unknown as Record<string, unknown>[]) {
    add(b.text);
    add(b.data);
    const r = b.resource as Record<string, unknown> | undefined;
    if (r && typeof r === 'object') {
      add(r.text);
      add(r.blob);
    }
  }
  return n;
}

export type PromptInput = string | ContentBlock | ContentBlock[];

export function toBlocks(input: PromptInput): ContentBlock[] {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  return Array.isArray(input) ? input : [input];
}

/** An event's own fields (the envelope is added by emit). */
export type EventBody<K extends EventName> = Omit<EventOf<K>, 'type' | 'sessionId' | 'seq' | 'at'>;

/** The session as its parts see it. */
export interface SessionCore {
  readonly id: string;
  readonly cwd: string;
  readonly additionalDirectories: string[];
  readonly mcpServers: unknown[];
  readonly thread: Thread;
  readonly state: SessionState;
  readonly catalog: Catalog;
  /** cwd + additional directories. */
  readonly roots: string[];
  readonly port: SessionPort;
  readonly broker: PermissionBroker;
  readonly hooks: SessionHooks;
  readonly logger: Logger;
  readonly maxPromptBytes: number;
  readonly now: () => number;
  emit<K extends EventName>(type: K, body: EventBody<K>): void;
  /** Applies a reducer action and emits what it changed. */
  apply(action: ThreadAction): void;
  notice(level: 'info' | 'warning' | 'error', code: string, text: string, data?: unknown): void;
  setState(event: StateEvent): void;
  setCatalog(catalog: Catalog): void;
  /** From a session/new|load|resume|fork result: its catalog. */
  adoptSetup(result: unknown): void;
}
