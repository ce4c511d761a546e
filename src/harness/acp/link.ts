/**
 * One recorded harness session as the editor sees it. The agent's `session/update`s are forwarded
 * as they arrive (raw: unknown kinds, fields and `_meta` kept), as the session took them (cancel
 * settlement and the quirk set had their say: subscribeUpdates), with the fixes the editor needs:
 * `messageId` on every chunk (the thread's message), the thread's status of a tool call, calls the
 * agent left open settled at turn end, Talaria's notices as messages, and permission requests only
 * when Talaria's policy did not answer them.
 */
import { randomUUID } from 'node:crypto';
import type { Frame, Logger } from '../../protocol/types.js';
import type { PermissionOption, PermissionSubject } from '../../permission/types.js';
import type { SessionEvent } from '../../session/events.js';
import type { TakenUpdate } from '../../session/session.js';
import { chunkKind, findToolCall } from '../../thread/index.js';
import { DEFAULT_CONTEXT_TOKENS } from '../../thread/seed.js';
import type { HarnessSession } from '../types.js';
import type { EditorPeer } from './peer.js';
import { notFound } from '../../session/other-requests.js';
import { rewriteUpdateLine } from './raw-update.js';
import { RunIds } from './run-ids.js';
import { effectAsk } from './effect-ask.js';
import { acpStatus, noticeUpdate, stateUpdates } from './setup.js';
import { TerminalText } from './terminal-text.js';
import { asRecord, recordOrEmpty } from '../../os/record.js';

type Update = { sessionUpdate: string; [k: string]: unknown };
const DONE = new Set(['completed', 'failed']);

export class SessionLink {
  /** Tool calls the editor was shown: whether it sees them open (not settled yet). */
  private readonly shown = new Map<string, boolean>();
  /** The messageIds Talaria gives messages the agent gave none. */
  private readonly runs: RunIds;
  /** Raw permission requests by the broker's request key, so the editor gets the agent's params verbatim. */
  private readonly asks = new Map<string, Record<string, unknown>>();
  private readonly asking = new Map<string, AbortController>();
  private readonly offs: (() => void)[] = [];
  /** Whether the agent sends `usage_update` itself (else Talaria makes one at turn end). */
  agentSendsUsage = false;
  /** The editor's own turns (and a flag while one is being made): they are not echoed back to it. */
  readonly ownTurns = new Set<string>();
  ownPrompt = false;
  /** The editor's session id as a JSON string, spliced into forwarded lines. */
  private readonly quotedId: string;
  /** Set when the editor cannot run terminals: Talaria's terminals reach it as their output. */
  private readonly terminals: TerminalText | undefined;

  constructor(
    readonly hs: HarnessSession,
    private readonly peer: EditorPeer,
    private readonly logger: Logger,
    editor: { terminal: boolean } = { terminal: false },
  ) {
    this.quotedId = JSON.stringify(hs.id);
    this.runs = new RunIds(hs.thread);
    if (!editor.terminal)
      this.terminals = new TerminalText(hs.session, (toolCallId, content) =>
        this.send({ sessionUpdate: 'tool_call_update', toolCallId, content }),
      );
    this.offs.push(hs.session.subscribeFrames((f) => this.frame(f)));
    this.offs.push(hs.session.subscribeUpdates((t) => this.taken(t)));
    this.offs.push(hs.subscribe((e) => this.event(e)));
    this.offs.push(
      hs.session.otherRequests.take((method, params, signal) => this.otherRequest(method, params, signal)),
    );
  }

  /**
   * An agent request Talaria does not answer (a vendor method, elicitation): the editor's to
   * answer, on its session id; its result or error goes back as it came. Gone editor: -32601.
   */
  private async otherRequest(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    if (this.peer.closed) throw notFound(method);
    const p = asRecord(params);
    try {
      const r = await this.peer.request(
        method,
        p && p.sessionId !== undefined ? { ...p, sessionId: this.hs.id } : params,
        signal,
      );
      return r ?? null;
    } catch (err) {
      if (this.peer.closed && !signal.aborted) throw notFound(method);
      throw err;
    }
  }

  get id(): string {
    return this.hs.id;
  }

  private send(update: Update): void {
    this.peer.notify('session/update', { sessionId: this.hs.id, update });
  }

  /** Requests and extension notifications from the agent (its updates come as the session took them: taken()). */
  private frame(f: Frame): void {
    if (f.dir !== 'agent->client') return;
    const m = f.msg;
    if (m.method === 'session/request_permission' && m.id !== undefined && m.id !== null) {
      const params = recordOrEmpty(m.params);
      this.asks.set(`${this.hs.session.id}:${String(m.id)}`, params);
      // The request's toolCall updates the call (qwen names its edit only there); when a rule
      // answers it the editor is not asked, so it gets that update on its own.
      const call = asRecord(params.toolCall);
      const id = typeof call?.toolCallId === 'string' ? call.toolCallId : undefined;
      if (call && id && this.shown.get(id) === true && Object.keys(call).length > 1)
        this.forward({ ...call, sessionUpdate: 'tool_call_update' } as Update, {});
      return;
    }
    if (m.method === undefined || m.id !== undefined) return;
    const params = recordOrEmpty(m.params);
    // Agent extension notifications pass through, on the editor's session id.
    if (m.method !== 'session/update')
      this.peer.notify(m.method, params.sessionId !== undefined ? { ...params, sessionId: this.hs.id } : params);
  }

  private taken({ update, frame }: TakenUpdate): void {
    const params = frame?.msg.params as Record<string, unknown> | undefined;
    // What settlement and the quirk set left alone can go out as the agent's own bytes.
    this.forward(update, params ?? {}, params?.update === update && this.peer.takesLines ? frame!.raw : undefined);
  }

  /** `line`: the agent's line for `u`, when `u` is what it says (forwarded as those bytes unless Talaria changes more than the ids). */
  private forward(u: Update, params: Record<string, unknown>, line?: string): void {
    const call = u.sessionUpdate === 'tool_call' || u.sessionUpdate === 'tool_call_update';
    const text = this.terminals && call ? this.terminals.rewrite(String(u.toolCallId ?? ''), u.content) : undefined;
    if (text) {
      u = { ...u, content: text };
      line = undefined;
    }
    /** What Talaria changes in the update (applied only when the line is not forwarded): the thread's messageId or status. */
    let messageId: string | undefined;
    let fixedStatus: string | undefined;
    let insert = '';
    const kind = chunkKind(u.sessionUpdate);
    if (kind !== undefined) {
      if (typeof u.messageId !== 'string' || u.messageId === '') {
        const run = this.runs.of(kind);
        messageId = run.id;
        // A messageId the agent sent but the thread does not use ('', a number) would be a duplicate key in the line.
        if (line !== undefined && !('messageId' in u)) insert = run.member;
        else line = undefined;
      }
    } else if (u.sessionUpdate === 'usage_update') {
      this.agentSendsUsage = true;
    } else if (call) {
      const id = String(u.toolCallId ?? '');
      // A tool_call without a status announces a pending call.
      let status = typeof u.status === 'string' ? u.status : u.sessionUpdate === 'tool_call' ? 'pending' : undefined;
      // The thread's word wins (a status it kept over a late one; `cancelled`, which ACP lacks).
      const e = status !== undefined ? findToolCall(this.hs.thread, id) : undefined;
      if (e && acpStatus(e.status) !== status) {
        status = acpStatus(e.status);
        fixedStatus = status;
        line = undefined;
      }
      if (status !== undefined) this.shown.set(id, !DONE.has(status));
      else if (!this.shown.has(id)) this.shown.set(id, true); // a call first seen in a status-less update: pending
    }
    if (line !== undefined) {
      const rewritten = rewriteUpdateLine(line, this.quotedId, insert);
      if (rewritten !== undefined) return this.peer.line(rewritten);
    }
    const update =
      messageId !== undefined ? { ...u, messageId } : fixedStatus !== undefined ? { ...u, status: fixedStatus } : u;
    this.peer.notify(
      'session/update',
      params._meta !== undefined
        ? { sessionId: this.hs.id, update, _meta: params._meta }
        : { sessionId: this.hs.id, update },
    );
  }

  private event(e: SessionEvent): void {
    if (e.type === 'turn.started') {
      // A turn another client (the browser, HTTP) prompted: the editor sees what was asked, as the
      // agent never echoes prompts.
      if (!this.ownPrompt && !this.ownTurns.has(e.turnId)) {
        const messageId = randomUUID();
        for (const content of e.prompt) this.send({ sessionUpdate: 'user_message_chunk', content, messageId });
      }
    } else if (e.type === 'entry.added' && e.entry.kind === 'notice') {
      // A turn error Talaria classified (copilot's "Error: 400" text) reaches the editor as its prompt's error: not twice.
      if (e.entry.level === 'error' && this.ownTurns.size > 0) return;
      this.send(noticeUpdate(e.entry.level, e.entry.code, e.entry.text, randomUUID()));
    } else if (e.type === 'permission.asked') {
      void this.ask(e.requestKey, e.toolCallId, e.title, e.options, e.subject);
    } else if (e.type === 'permission.decided') {
      // Answered elsewhere (browser, timeout, cancel): the editor's question is withdrawn.
      this.asking.get(e.requestKey)?.abort();
    }
  }

  private async ask(
    requestKey: string,
    toolCallId: string,
    title: string | undefined,
    options: readonly PermissionOption[],
    subject: PermissionSubject,
  ): Promise<void> {
    const params = this.asks.get(requestKey) ?? effectAsk(toolCallId, title, options, subject);
    this.asks.delete(requestKey);
    const ac = new AbortController();
    this.asking.set(requestKey, ac);
    try {
      // The tool call Talaria linked the request to (Hermes names one it never announced).
      const toolCall = { ...recordOrEmpty(params.toolCall), toolCallId: this.linkedCall(requestKey) ?? toolCallId };
      const r = asRecord(
        await this.peer.request(
          'session/request_permission',
          { ...params, toolCall, sessionId: this.hs.id },
          ac.signal,
        ),
      );
      const outcome = asRecord(r?.outcome);
      if (outcome?.outcome === 'selected' && typeof outcome.optionId === 'string')
        this.hs.answerPermission(requestKey, { optionId: outcome.optionId }, 'editor');
      else this.hs.answerPermission(requestKey, { choice: 'reject_once' }, 'editor');
    } catch (err) {
      if (!ac.signal.aborted) {
        this.logger.warn('the editor did not answer a permission request', { requestKey, error: String(err) });
        this.hs.answerPermission(requestKey, { choice: 'reject_once' }, 'editor');
      }
    } finally {
      this.asking.delete(requestKey);
    }
  }

  /** The thread's tool call that carries this permission request (the bridge put it there). */
  private linkedCall(requestKey: string): string | undefined {
    const requestId = requestKey.slice(this.hs.session.id.length + 1);
    for (let i = this.hs.thread.entries.length - 1; i >= 0; i--) {
      const e = this.hs.thread.entries[i]!;
      if (e.kind === 'tool_call' && e.permission && String(e.permission.requestId) === requestId) return e.toolCallId;
    }
    return undefined;
  }

  /** Turn end: every tool call still open for the editor gets the status Talaria settled it with. */
  settle(stopReason: string): void {
    for (const [id, open] of this.shown) {
      if (!open) continue;
      this.shown.set(id, false);
      const e = findToolCall(this.hs.thread, id);
      const status =
        e && DONE.has(acpStatus(e.status)) ? acpStatus(e.status) : stopReason === 'end_turn' ? 'completed' : 'failed';
      this.send({
        sessionUpdate: 'tool_call_update',
        toolCallId: id,
        status,
        _meta: { talaria: { settledBy: stopReason === 'end_turn' ? 'turn_end' : 'cancel' } },
      });
    }
  }

  /**
   * Turn end, for an agent that sends no `usage_update`: one from the turn's usage, so the editor's
   * context meter works. `used` is the turn's totalTokens (what the last request held); `size` is
   * the window the thread knows, else Talaria's default, marked as assumed.
   */
  synthesizeUsage(usage: Record<string, unknown> | undefined): void {
    if (this.agentSendsUsage || !usage || typeof usage.totalTokens !== 'number') return;
    const known = this.hs.thread.context.size;
    const size = typeof known === 'number' && known > 0 ? known : DEFAULT_CONTEXT_TOKENS;
    this.send({
      sessionUpdate: 'usage_update',
      used: usage.totalTokens,
      size,
      _meta: { talaria: { synthesized: true, ...(size === known ? {} : { sizeAssumed: true }) } },
    });
  }

  /** Replayed history (session/load): sent before the load answer. */
  replay(updates: Record<string, unknown>[]): void {
    for (const u of updates) this.send(u as Update);
  }

  /** The session's state as the agent told it (setup.ts stateUpdates): sent right after the session/new|load|resume answer. */
  replayState(): void {
    for (const u of stateUpdates(this.hs.thread, this.hs.catalog)) this.send(u);
  }

  dispose(): void {
    this.terminals?.dispose();
    for (const off of this.offs.splice(0)) off();
    for (const ac of this.asking.values()) ac.abort();
  }
}
