/**
 * The app's live state: who we are (controller or observer), workspaces, the session list,
 * providers, and one SessionStore per opened session, all fed by one WebSocket.
 */
import { startTransition, useEffect, useState, useSyncExternalStore } from 'react';
import type { LiveSocket, Subscription } from '../../../src/server/client/index.js';
import type { ProviderInfo, Role, ServerClient, ServerMessage, SessionSummaryInfo, WorkspaceInfo } from '../api/server.js';
import { SessionStore, type SessionView } from './session-store.js';

export interface AppState {
  role: Role;
  label?: string;
  workspaces: WorkspaceInfo[];
  sessions: SessionSummaryInfo[];
  providers: ProviderInfo[];
  defaultProvider?: string;
  connected: boolean;
  /** Readiness problems the doctor reported (config files it could not read…). */
  problems?: string[];
  /** The last attention text, for a toast. */
  toast?: { text: string; at: number };
}

export class AppStore {
  private state: AppState;
  private readonly listeners = new Set<() => void>();
  private readonly sessions = new Map<string, { store: SessionStore; sub: Subscription }>();
  readonly socket: LiveSocket;

  constructor(
    readonly client: ServerClient,
    role: Role,
    label: string | undefined,
  ) {
    this.state = { role, ...(label ? { label } : {}), workspaces: [], sessions: [], providers: [], connected: false };
    this.socket = client.socket({
      onMessage: (m) => this.onMessage(m),
      onOpen: () => this.set({ connected: true }),
      onClose: () => this.set({ connected: false }),
    });
  }

  get = (): AppState => this.state;
  subscribe = (fn: () => void): (() => void) => {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  };

  /** Changes are told once per frame: a streamed turn updates the list (preview) on every chunk. */
  set(patch: Partial<AppState>): void {
    this.state = { ...this.state, ...patch };
    if (this.scheduled) return;
    this.scheduled = true;
    const flush = (): void => {
      if (!this.scheduled) return;
      this.scheduled = false;
      for (const fn of this.listeners) fn();
    };
    if (!document.hidden) requestAnimationFrame(flush);
    setTimeout(flush, 100);
  }

  private scheduled = false;

  async refresh(): Promise<void> {
    const [ws, ss, ps] = await Promise.all([this.client.api.workspaces(), this.client.api.listSessions({ query: { archived: 'include', fleet: 'true' } }), this.client.api.providers()]);
    // The agents' own sessions listed last time stay until their workspaces answer again.
    const agentOnly = this.state.sessions.filter((s) => !s.stored && !ss.sessions.some((x) => x.id === s.id || x.agentSessionId === s.id));
    this.set({ workspaces: ws.workspaces, sessions: [...ss.sessions, ...agentOnly], providers: ps.providers, ...(ps.default ? { defaultProvider: ps.default } : {}) });
    void this.loadAgentSessions(ws.workspaces);
    if (!this.readinessAsked) {
      this.readinessAsked = true;
      void this.loadReadiness(false);
    }
  }

  private readinessAsked = false;

  /** Readiness (the doctor's gaps) marks the providers that cannot start; it can take a moment, so it runs behind the page. */
  async loadReadiness(refresh: boolean): Promise<void> {
    try {
      const r = await this.client.api.readiness({ query: refresh ? { refresh: 'true' } : {} });
      const byId = new Map(r.providers.map((p) => [p.id, p]));
      this.set({ providers: this.state.providers.map((p) => byId.get(p.id) ?? p), problems: r.problems });
    } catch {
      // The readiness panel shows the error; the menu stays usable without it.
    }
  }

  /**
   * Sessions only an agent lists (its own history from before Talaria, or another client's), per
   * workspace: asked behind the page, since it starts each workspace's agent. A workspace whose
   * agent cannot list keeps the stored rows only.
   */
  private async loadAgentSessions(workspaces: WorkspaceInfo[]): Promise<void> {
    const lists = await Promise.all(workspaces.map((w) => this.client.api.listSessions({ query: { workspace: w.id, agent: 'true' } }).catch(() => undefined)));
    const asked = new Set(workspaces.filter((_, i) => lists[i] !== undefined).map((w) => w.id));
    const found = lists.flatMap((r) => r?.sessions.filter((s) => !s.stored) ?? []);
    const kept = this.state.sessions.filter((s) => s.stored || !asked.has(s.workspaceId ?? ''));
    const known = new Set(kept.flatMap((s) => [s.id, ...(s.agentSessionId ? [s.agentSessionId] : [])]));
    this.set({ sessions: [...kept, ...found.filter((s) => !known.has(s.id))] });
  }

  /** Opens a session only the agent lists: the agent gives it back and Talaria stores it; its row becomes the stored one. Resolves to Talaria's id. */
  async openAgentSession(s: SessionSummaryInfo): Promise<string> {
    const { snapshot } = await this.client.api.openSession({ params: { id: s.id }, body: { ...(s.workspaceId ? { workspace: s.workspaceId } : {}) } });
    this.set({ sessions: this.state.sessions.filter((x) => x.id !== s.id) });
    this.upsertSession(snapshot.session);
    return snapshot.session.id;
  }

  /** The store of a session, subscribing on first use (snapshot, then live events). */
  session(id: string): SessionStore {
    const have = this.sessions.get(id);
    if (have) return have.store;
    const store = new SessionStore(id);
    const sub = this.socket.subscribe(id, {
      onSnapshot: (s) => store.applySnapshot(s),
      onEvent: (e) => {
        store.applyEvent(e);
        if (e.type === 'attention') this.attention(e.text);
        // Keep the sidebar's line of this session live between the server's session.updated messages.
        if (e.type === 'session.state') this.patchSession(id, { state: e.state });
        if (e.type === 'permission.asked') this.patchSession(id, { needsAttention: true });
        if (e.type === 'permission.resolved' || e.type === 'permission.decided') this.patchSession(id, { needsAttention: store.pendingCount > 0 });
      },
    });
    this.sessions.set(id, { store, sub });
    return store;
  }

  upsertSession(next: SessionSummaryInfo): void {
    const prev = this.state.sessions.find((x) => x.id === next.id);
    // An update of this host's list knows nothing of the fleet: another host's session keeps its host.
    const s = !next.host && prev?.host && !next.live ? { ...next, host: prev.host, ...(prev.presence ? { presence: prev.presence } : {}) } : next;
    const list = this.state.sessions.filter((x) => x.id !== s.id);
    this.set({ sessions: [s, ...list].sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0)) });
  }

  /** A workspace the server changed (its agent, its Hermes profile). */
  upsertWorkspace(w: WorkspaceInfo): void {
    this.set({ workspaces: this.state.workspaces.map((x) => (x.id === w.id ? w : x)) });
  }

  private patchSession(id: string, patch: Partial<SessionSummaryInfo>): void {
    if (!this.state.sessions.some((s) => s.id === id)) return;
    this.set({ sessions: this.state.sessions.map((s) => (s.id === id ? { ...s, ...patch } : s)) });
  }

  private attention(text: string): void {
    this.set({ toast: { text, at: Date.now() } });
    // localhost is a secure context: a hidden tab gets a system notification.
    if (document.hidden && 'Notification' in window && Notification.permission === 'granted') new Notification('Talaria', { body: text });
  }

  private onMessage(m: ServerMessage): void {
    if (m.type === 'session.updated') this.upsertSession(m.session);
    // Another host's session or a host's lease changed: one list reload for a burst of them.
    if (m.type === 'fleet.updated' && !this.fleetTimer)
      this.fleetTimer = setTimeout(() => {
        this.fleetTimer = undefined;
        this.refresh().catch(() => undefined);
      }, 250);
  }

  private fleetTimer: ReturnType<typeof setTimeout> | undefined;

  close(): void {
    for (const { sub } of this.sessions.values()) sub.close();
    this.socket.close();
  }
}

export function useApp(store: AppStore): AppState {
  return useSyncExternalStore(store.subscribe, store.get);
}

/**
 * One session's view. Its updates render as a transition: React renders them in slices and
 * yields to the browser between components, so a streamed turn's renders are not one long task
 * (useSyncExternalStore renders every update synchronously, in one piece).
 */
export function useSession(store: SessionStore): SessionView {
  const [view, setView] = useState(store.get);
  useEffect(() => {
    let shown = store.get();
    setView(shown);
    return store.subscribe(() => {
      const next = store.get();
      // The first loaded view is drawn at once (time to the first entry); later ones in slices.
      if (shown.loaded) startTransition(() => setView(next));
      else setView(next);
      shown = next;
    });
  }, [store]);
  // Another session's page: its store's view at once, not the previous session's.
  return view.sessionId === store.sessionId ? view : store.get();
}
