/**
 * `talaria acp`'s core: Talaria as an ACP agent. Each editor session is a recorded harness session
 * (listed by `talaria sessions list` as it runs); the editor sees Talaria's ids, Talaria's answers
 * and Talaria's fixes. Methods Talaria does not know go to the agent verbatim.
 */
import { resolve } from 'node:path';
import { TalariaError } from '../../protocol/errors.js';
import { RequestError } from '../../protocol/wire-error.js';
import { silentLogger, type Logger } from '../../protocol/types.js';
import type { ConnectionInfo, Harness, HarnessSession } from '../types.js';
import { failure, ParamsError, promptAnswer, Reply, RPC } from './answers.js';
import { editorAuthMethods, editorRunsTerminalAuth } from './auth.js';
import { SessionLink } from './link.js';
import { editorList } from './list.js';
import { EditorPeer, type JsonRpcId, type RpcMessage } from './peer.js';
import { editorCapabilities, replayUpdates, selectorFor, setupFields } from './setup.js';
import { recordOrEmpty } from '../../os/record.js';

export interface AcpProxyOptions {
  harness: Harness;
  /** The agent every session runs on (a registry id). */
  provider: string;
  profile?: string;
  /** Where the agent is warmed up at `initialize` (the editor's first session/new there adopts it). */
  cwd: string;
  /** One JSON-RPC message to the editor. */
  write: (msg: RpcMessage) => void;
  /** The same, already serialized (one line without its newline): agent frames forwarded as the agent's bytes. */
  writeLine?: (line: string) => void;
  logger?: Logger;
  /** What Talaria calls itself in `initialize`. */
  version?: string;
  /** Set when the proxy is one face of a server (`/acp`): sessions are shared with its other clients. */
  shared?: SharedSessions;
}

/**
 * How a server shares sessions with an `/acp` client: sessions the editor opens become live server
 * sessions (the web UI and `/ws` see them), a session the server already has live is reused, and
 * the editor leaving does not close what others may be driving.
 */
export interface SharedSessions {
  /** A session opened for the editor (new, load or resume): the server makes it live. */
  opened(hs: HarnessSession): void;
  /** The server's live session by id, if it has one. */
  live(id: string): HarnessSession | undefined;
}

const PROTOCOL_VERSION = 1;

export class AcpProxy {
  readonly peer: EditorPeer;
  private readonly logger: Logger;
  private readonly links = new Map<string, SessionLink>();
  /** The session opened at initialize, until an editor session/new adopts it. */
  private warm: Promise<HarnessSession> | undefined;
  /** Editor requests being served, for `$/cancel_request`. */
  private readonly serving = new Map<JsonRpcId, AbortController>();
  /** Sessions Talaria opened for the editor (unprompted new ones are archived on close). */
  private readonly opened: HarnessSession[] = [];
  /** Talaria ids of the sessions this editor created or opened (session/list shows them before their first turn). */
  private readonly seen = new Set<string>();
  /** What the editor said it can do in initialize. */
  private editor = { terminal: false, terminalAuth: false };

  constructor(private readonly o: AcpProxyOptions) {
    this.peer = new EditorPeer(o.write, o.writeLine);
    this.logger = o.logger ?? silentLogger;
  }

  /** The sessions the editor has open (Talaria id → harness session). */
  sessions(): HarnessSession[] {
    return [...this.links.values()].map((l) => l.hs);
  }

  /** A line from the editor (NDJSON); a line that is not JSON-RPC gets a parse error, never a crash. */
  receiveLine(line: string): void {
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.peer.fail(null, RPC.PARSE, 'Parse error: the line is not JSON');
      return;
    }
    const m = recordOrEmpty(msg) as RpcMessage;
    if (typeof m !== 'object' || (m.method === undefined && m.id === undefined)) {
      this.peer.fail(null, RPC.INVALID, 'Invalid Request: not a JSON-RPC message');
      return;
    }
    this.receive(m);
  }

  receive(m: RpcMessage): void {
    if (m.method === undefined) {
      if (!this.peer.answer(m)) this.logger.warn('an answer from the editor matches no request', { id: m.id });
      return;
    }
    if (m.id === undefined || m.id === null) {
      void this.notification(m.method, recordOrEmpty(m.params)).catch((err: unknown) =>
        this.logger.warn('an editor notification failed', { method: m.method, error: String(err) }),
      );
      return;
    }
    const id = m.id;
    const ac = new AbortController();
    this.serving.set(id, ac);
    this.request(m.method, m.params, ac.signal)
      .then((r) => {
        if (!(r instanceof Reply)) return this.peer.respond(id, r);
        this.peer.respond(id, r.result);
        r.after();
      })
      .catch((err: unknown) => this.fail(id, err))
      .finally(() => this.serving.delete(id));
  }

  private fail(id: JsonRpcId, err: unknown): void {
    const f = failure(err);
    this.peer.fail(id, f.code, f.message, f.data);
  }

  private async notification(method: string, p: Record<string, unknown>): Promise<void> {
    switch (method) {
      case '$/cancel_request': {
        const ac = this.serving.get(p.requestId as JsonRpcId);
        ac?.abort();
        return;
      }
      case 'session/cancel':
        await this.link(p).hs.cancel();
        return;
      default: {
        const link = this.linkOf(p);
        const port = (link?.hs ?? (await this.anySession())).session.port;
        await port.notify(method, link ? { ...p, sessionId: link.hs.session.id } : p);
      }
    }
  }

  private async request(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const p = recordOrEmpty(params);
    switch (method) {
      case 'initialize':
        return this.initialize(p);
      case 'authenticate':
        return {};
      case 'session/new':
        return this.newSession(p);
      case 'session/load':
      case 'session/resume':
        return this.openSession(p, method === 'session/load');
      case 'session/list':
        return editorList({ ...this.agentOpts(), harness: this.o.harness, seen: this.seen }, p);
      case 'session/prompt':
        return this.prompt(p, signal);
      case 'session/set_mode':
        await this.link(p).hs.setMode(String(p.modeId));
        return {};
      case 'session/set_model':
        await this.link(p).hs.setModel(String(p.modelId));
        return {};
      case 'session/set_config_option':
        return this.setConfigOption(p);
      case 'session/close':
        await this.closeSession(this.link(p));
        return {};
      case 'session/delete':
        return this.deleteSession(p);
      default:
        return this.passThrough(method, p, signal);
    }
  }

  private async initialize(p: Record<string, unknown>): Promise<unknown> {
    const caps = recordOrEmpty(p.clientCapabilities);
    // With --attach the agent runs on the server: a sign-in command is no use on the editor's machine.
    this.editor = { terminal: caps.terminal === true, terminalAuth: editorRunsTerminalAuth(caps) && !this.o.shared };
    let info: ConnectionInfo | undefined;
    let authMethods: unknown[] = [];
    try {
      const hs = await this.warmSession();
      const key = this.o.harness.host.targetOf(hs.session);
      info = key ? this.o.harness.connectionInfo(key) : undefined;
      // The agent's own auth methods: an editor offers sign-in (and the ACP registry expects some).
      if (info?.authMethods) authMethods = info.authMethods;
    } catch (err) {
      // An agent that wants credentials did initialize: the editor learns how to sign in, session/new says auth_required.
      if (!(err instanceof TalariaError && err.code === 'auth_required')) throw err;
      const methods = (err.details as { authMethods?: unknown } | undefined)?.authMethods;
      if (Array.isArray(methods)) authMethods = methods;
    }
    const asked = typeof p.protocolVersion === 'number' ? p.protocolVersion : PROTOCOL_VERSION;
    const agent = info?.agentInfo;
    return {
      protocolVersion: Math.min(asked, PROTOCOL_VERSION),
      agentCapabilities: editorCapabilities(info?.agentCapabilities),
      agentInfo: {
        name: 'talaria',
        title: agent ? `Talaria: ${agent.title ?? agent.name ?? this.o.provider}` : 'Talaria',
        version: this.o.version ?? '0.0.0',
      },
      authMethods: await editorAuthMethods(authMethods, {
        ...this.agentOpts(),
        harness: this.o.harness,
        terminalAuth: this.editor.terminalAuth,
      }),
      _meta: { talaria: { provider: this.o.provider, ...(agent ? { agentInfo: agent } : {}) } },
    };
  }

  private warmSession(): Promise<HarnessSession> {
    if (!this.warm) {
      this.warm = this.o.harness.workspaces.open(this.o.cwd).newSession(this.agentOpts());
      this.warm.then((hs) => this.opened.push(hs)).catch(() => undefined);
    }
    return this.warm;
  }

  private agentOpts() {
    return { provider: this.o.provider, ...(this.o.profile ? { profile: this.o.profile } : {}) };
  }

  private async anySession(): Promise<HarnessSession> {
    return this.links.values().next().value?.hs ?? (await this.warmSession());
  }

  private adopt(hs: HarnessSession): SessionLink {
    const link = new SessionLink(hs, this.peer, this.logger, { terminal: this.editor.terminal });
    this.links.set(hs.id, link);
    this.seen.add(hs.id);
    if (this.o.shared && this.o.shared.live(hs.id) !== hs) this.o.shared.opened(hs);
    return link;
  }

  private async newSession(p: Record<string, unknown>): Promise<unknown> {
    const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : this.o.cwd;
    const mcpServers = Array.isArray(p.mcpServers) ? p.mcpServers : [];
    let hs: HarnessSession | undefined;
    const warm = this.warm;
    // Paths compared resolved, as the workspace does: an editor's "/repo/" missed the warm "/repo",
    // which then idled beside the editor's session and checkpointed the store mid-turn.
    if (warm && resolve(cwd) === resolve(this.o.cwd) && mcpServers.length === 0) {
      const w = await warm.catch(() => undefined);
      if (w && !this.links.has(w.id)) hs = w;
    }
    if (!hs) {
      hs = await this.o.harness.workspaces.open(cwd).newSession({ ...this.agentOpts(), cwd, mcpServers });
      this.opened.push(hs);
    }
    const link = this.adopt(hs);
    return new Reply({ sessionId: hs.id, ...setupFields(hs.catalog) }, () => link.replayState());
  }

  private async openSession(p: Record<string, unknown>, replay: boolean): Promise<unknown> {
    const id = String(p.sessionId ?? '');
    const open = this.links.get(id);
    if (open) {
      if (replay) open.replay(replayUpdates(open.hs.thread.entries));
      return new Reply(setupFields(open.hs.catalog), () => open.replayState());
    }
    const stored = this.o.harness.sessions.find(id);
    if (!stored)
      throw new RequestError(-32002, `Resource not found: session ${id}`, { code: 'session_not_found', sessionId: id });
    const live = this.o.shared?.live(stored.id);
    let hs: HarnessSession;
    let link: SessionLink;
    if (live && live.session.state !== 'closed' && live.session.state !== 'failed') {
      // Another client (the browser, another editor) drives it: join the live session.
      hs = live;
      link = this.adopt(live);
      if (replay) link.replay(replayUpdates(live.thread.entries));
    } else {
      const cwd = typeof p.cwd === 'string' && p.cwd !== '' ? p.cwd : stored.cwd;
      const mcpServers = Array.isArray(p.mcpServers) ? p.mcpServers : [];
      // The thread as it was lived (the agent's replay may renumber its tool calls, Hermes does).
      const held = replay ? this.o.harness.sessions.entries(stored.id) : [];
      hs = await this.o.harness.workspaces.open(cwd).openSession(stored.id, { mcpServers });
      this.opened.push(hs);
      link = this.adopt(hs);
      // Talaria replays the thread it holds: the editor gets the history whether the agent loaded,
      // resumed or no longer had the session (restored); session/resume gets none, as the spec says.
      if (replay) link.replay(replayUpdates(held.length > 0 ? held : hs.thread.entries));
    }
    // The editor came back to it: a session archived when an earlier editor left it unprompted
    // (`acpx sessions new`) is a conversation again, listed by session/list and `talaria sessions list`.
    if (this.o.harness.sessions.find(stored.id)?.archived) this.o.harness.sessions.unarchive(stored.id);
    return new Reply(setupFields(hs.catalog), () => link.replayState());
  }

  private async prompt(p: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const link = this.link(p);
    if (!Array.isArray(p.prompt)) throw new ParamsError('session/prompt needs a prompt (an array of content blocks)');
    link.ownPrompt = true;
    let turn;
    try {
      turn = link.hs.prompt(p.prompt as { type: string }[]);
    } finally {
      link.ownPrompt = false;
    }
    link.ownTurns.add(turn.id);
    const onAbort = () => void link.hs.cancel();
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await turn.result;
      link.settle(r.stopReason);
      const answer = promptAnswer(r);
      if (r.stopReason !== 'error') link.synthesizeUsage(r.usage as Record<string, unknown> | undefined);
      return answer;
    } finally {
      signal.removeEventListener('abort', onAbort);
      link.ownTurns.delete(turn.id);
    }
  }

  private async setConfigOption(p: Record<string, unknown>): Promise<unknown> {
    const link = this.link(p);
    const configId = String(p.configId ?? '');
    const which = selectorFor(link.hs.catalog, configId);
    if (which === 'model') await link.hs.setModel(String(p.value));
    else if (which === 'mode') await link.hs.setMode(String(p.value));
    else await link.hs.session.setConfigOption(configId, p.value);
    return { configOptions: setupFields(link.hs.catalog).configOptions ?? [] };
  }

  private async closeSession(link: SessionLink): Promise<void> {
    this.links.delete(link.id);
    link.dispose();
    // A shared session stays live for the server's other clients; the editor only lets go of it.
    if (!this.o.shared) await link.hs.close();
  }

  private async deleteSession(p: Record<string, unknown>): Promise<unknown> {
    const id = String(p.sessionId ?? '');
    const link = this.links.get(id);
    if (link) await this.closeSession(link);
    const stored = this.o.harness.sessions.find(id);
    if (!stored)
      throw new RequestError(-32002, `Resource not found: session ${id}`, { code: 'session_not_found', sessionId: id });
    // Talaria keeps what it recorded: delete = archive (unarchive with `talaria sessions unarchive`).
    this.o.harness.sessions.archive(stored.id);
    return {};
  }

  private async passThrough(method: string, p: Record<string, unknown>, signal: AbortSignal): Promise<unknown> {
    const link = this.linkOf(p);
    const hs = link?.hs ?? (await this.anySession());
    return hs.session.port.request(method, link ? { ...p, sessionId: hs.session.id } : p, { signal });
  }

  private linkOf(p: Record<string, unknown>): SessionLink | undefined {
    return typeof p.sessionId === 'string' ? this.links.get(p.sessionId) : undefined;
  }

  private link(p: Record<string, unknown>): SessionLink {
    const l = this.linkOf(p);
    if (!l)
      throw new RequestError(
        -32002,
        `Resource not found: session ${String(p.sessionId)} is not open (session/new or session/load first)`,
        { code: 'session_not_found' },
      );
    return l;
  }

  /** The editor went away: sessions close (the store keeps them); new ones never prompted are archived. */
  async close(): Promise<void> {
    this.peer.close();
    for (const ac of this.serving.values()) ac.abort();
    for (const link of this.links.values()) link.dispose();
    this.links.clear();
    const store = this.o.harness.store;
    if (this.o.shared) {
      // Shared sessions stay live on the server; the warm one no editor session took is let go.
      const warm = await this.warm?.catch(() => undefined);
      if (warm && this.o.shared.live(warm.id) !== warm && !store.closed) {
        await warm
          .close()
          .catch((err: unknown) => this.logger.warn('closing the unused warm session failed', { error: String(err) }));
        if (store.turns.list(warm.id).length === 0) this.o.harness.sessions.archive(warm.id);
      }
      return;
    }
    for (const hs of this.opened) {
      if (hs.origin === 'new' && !store.closed) {
        hs.flush();
        if (store.turns.list(hs.id).length === 0) this.o.harness.sessions.archive(hs.id);
      }
    }
  }
}
