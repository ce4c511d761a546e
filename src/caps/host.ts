/**
 * The caps host: one per process (per harness). It owns the references, the live sessions, the
 * dataspace and the session facts in it, and makes one CapTP endpoint per connection whose only
 * public object is `fetch(ref)`.
 */
import './lockdown.js';
import { randomUUID } from 'node:crypto';
import { makeCapTP } from '@endo/captp';
import { makeExo } from '@endo/exo';
import { answerSlotsIn, answerSlotsOut } from './answer-slots.js';
import type { Harness } from '../harness/index.js';
import { silentLogger, type Logger } from '../protocol/types.js';
import type { ConnCtx, HostParts } from './context.js';
import { AgentFacts, type AgentFact } from './agent-facts.js';
import { Dataspace } from './dataspace.js';
import { makeDataspaceFacet, type Quotas } from './dataspace-facet.js';
import type { EventCursor } from './cursor.js';
import { CapsError } from './errors.js';
import { exportCounter, type ExportCount } from './export-count.js';
import { onSentError } from './sent-errors.js';
import { makeResponder, makeSessionFacet } from './facets.js';
import { Gates, type Gate } from './gate.js';
import { BootstrapI } from './guards.js';
import { makeLauncher, parseLauncherTarget } from './launcher.js';
import { LiveSessions } from './live.js';
import { Permissions } from './permissions.js';
import { RefStore, type RefRow } from './refs.js';
import { publishSessions } from './session-facts.js';
import { makePeer, parsePeerTarget, type PeerHooks } from './peer.js';

export interface CapsHostOptions {
  harness: Harness;
  logger?: Logger;
  now?: () => number;
  quotas?: Partial<Quotas>;
  /** The store's event log (`talaria serve` hands it in): readers resume on its seq. Without it, on the session's own seq. */
  cursor?: EventCursor;
}

export interface CapsConnection {
  readonly id: string;
  /** Feeds one decoded CapTP message in; malformed ones are dropped (counted), never thrown. */
  dispatch(msg: unknown): void;
  close(reason?: string): void;
  readonly malformed: number;
  /** CapTP's counters (sends, receives, exports dropped by the peer) and the exports still alive. */
  stats(): {
    send: Record<string, number>;
    recv: Record<string, number>;
    gc: Record<string, number>;
    exports: ExportCount;
  };
}

export class CapsHost implements HostParts {
  readonly harness: Harness;
  readonly refs: RefStore;
  readonly gates: Gates;
  readonly live: LiveSessions;
  readonly permissions = new Permissions();
  readonly dataspace = new Dataspace();
  readonly logger: Logger;
  readonly now: () => number;
  readonly quotas: Quotas;
  readonly cursor: EventCursor | undefined;
  /** Agent facts (`{type: 'agent', id, ready, …}`): published by `publishAgents()`. */
  private readonly agentFacts: AgentFacts;
  private readonly conns = new Set<CapsConnection>();
  private readonly offs: (() => void)[] = [];
  /** Set when this host serves the other hosts of a fleet (peer references). */
  private peerHooks: PeerHooks | undefined;

  constructor(o: CapsHostOptions) {
    this.harness = o.harness;
    this.logger = o.logger ?? silentLogger;
    this.now = o.now ?? Date.now;
    this.cursor = o.cursor;
    this.refs = new RefStore(o.harness.store, this.now);
    this.gates = new Gates(this.refs, this.now);
    this.live = new LiveSessions(o.harness);
    this.quotas = { maxFacts: 1_000, assertsPerSecond: 2_000, ...o.quotas };
    this.offs.push(this.live.onAdded((ls) => this.offs.push(this.permissions.watch(ls))));
    this.offs.push(publishSessions(this));
    this.agentFacts = new AgentFacts(o.harness, this.dataspace, this.refs.hostKey);
    // What marshal would print to stdout for each error sent to a peer goes to the logger instead.
    this.offs.push(
      onSentError((err) =>
        this.logger.debug('caps: an error was sent to a peer', {
          error: err instanceof Error ? err.message : String(err),
        }),
      ),
    );
  }

  /** Checks the agents and asserts (or updates) one fact per agent; `serve --caps` calls it at start. */
  publishAgents(o: { timeoutMs?: number } = {}): Promise<AgentFact[]> {
    return this.agentFacts.publish(o);
  }

  /** This host serves its fleet's other hosts: peer references are honoured from now on (peer.ts). */
  servePeers(hooks: PeerHooks): void {
    this.peerHooks = hooks;
  }

  /** Mints a launcher reference for a workspace (optionally one agent). */
  mintLauncher(
    workspace: string,
    o: { provider?: string; expiresAt?: number; label?: string } = {},
  ): { uri: string; id: string } {
    const target = JSON.stringify({ workspace, ...(o.provider ? { provider: o.provider } : {}) });
    const m = this.refs.mint({
      facet: 'launcher',
      target,
      ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
      ...(o.label ? { label: o.label } : {}),
    });
    return { uri: m.uri, id: m.row.id };
  }

  /** Mints a dataspace reference (observe, and assert/retract facts owned by the connection). */
  mintDataspace(o: { methods?: ('observe' | 'assert' | 'retract')[]; expiresAt?: number; label?: string } = {}): {
    uri: string;
    id: string;
  } {
    const m = this.refs.mint({
      facet: 'observer',
      target: 'dataspace',
      ...(o.methods ? { methods: o.methods } : {}),
      ...(o.expiresAt !== undefined ? { expiresAt: o.expiresAt } : {}),
      ...(o.label ? { label: o.label } : {}),
    });
    return { uri: m.uri, id: m.row.id };
  }

  /** One CapTP endpoint; `send` gets each outgoing message (JSON-encodable). */
  connect(send: (msg: unknown) => void, o: { onClosed?: () => void } = {}): CapsConnection {
    const id = randomUUID();
    const closers = new Set<() => void>();
    const gates = new Set<Gate>();
    const byRef = new Map<string, Gate>();
    let closed = false;
    let malformed = 0;
    const ctx: ConnCtx = {
      ...this.parts(),
      id,
      gate: (row: RefRow | undefined) => {
        // One gate per reference per connection: fetching the same reference again reuses it, so
        // a connection holds at most one gate per reference however many calls it makes.
        const have = row ? byRef.get(row.id) : undefined;
        if (have) return have;
        const g = this.gates.make(row?.id, row?.methods, row?.expiresAt);
        gates.add(g);
        if (row) byRef.set(row.id, g);
        g.onShut(() => {
          gates.delete(g);
          if (row) byRef.delete(row.id);
        });
        return g;
      },
      onClose: (fn) => {
        closers.add(fn);
        return () => closers.delete(fn);
      },
    };
    const redeem = (ref: string): Promise<unknown> => this.redeem(ctx, ref);
    const bootstrap = makeExo('Bootstrap', BootstrapI, {
      fetch(ref: string) {
        return redeem(ref);
      },
    });
    const exports = exportCounter();
    const captp = makeCapTP(
      `talaria:${id}`,
      (m) => {
        if (!closed) send(answerSlotsOut(m));
      },
      bootstrap,
      {
        gcImports: true,
        exportHook: exports.hook,
        onReject: (err) =>
          this.logger.debug('caps: a call failed', {
            connection: id,
            error: err instanceof Error ? err.message : String(err),
          }),
      },
    );
    const conn: CapsConnection = {
      id,
      get malformed() {
        return malformed;
      },
      stats: () => ({ ...captp.getStats(), exports: exports.count() }),
      dispatch: (msg) => {
        if (closed) return;
        if (
          typeof msg !== 'object' ||
          msg === null ||
          Array.isArray(msg) ||
          typeof (msg as { type?: unknown }).type !== 'string'
        ) {
          malformed++;
          return;
        }
        try {
          if (!captp.dispatch(answerSlotsIn(msg))) malformed++;
          // The peer hung up at the CapTP level: CapTP is unplugged now, so close the transport too.
          const type = (msg as { type: string }).type;
          if (type === 'CTP_DISCONNECT' || type === 'CTP_ABORT') conn.close('the peer disconnected');
        } catch (err) {
          // CapTP throws on messages it cannot decode: drop them, the connection stays usable.
          malformed++;
          this.logger.debug('caps: a malformed message was dropped', {
            connection: id,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      },
      close: (reason = 'connection closed') => {
        if (closed) return;
        closed = true;
        this.conns.delete(conn);
        for (const fn of closers) fn();
        closers.clear();
        for (const g of [...gates]) g.shut(reason);
        this.dataspace.retractAll(id);
        try {
          captp.abort(new Error(reason));
        } catch {
          // already aborted
        }
        o.onClosed?.();
      },
    };
    this.conns.add(conn);
    return conn;
  }

  get connections(): number {
    return this.conns.size;
  }

  /** The live connections (diagnostics, tests). */
  connectionList(): CapsConnection[] {
    return [...this.conns];
  }

  private parts(): HostParts {
    return {
      harness: this.harness,
      refs: this.refs,
      gates: this.gates,
      live: this.live,
      permissions: this.permissions,
      dataspace: this.dataspace,
      logger: this.logger,
      now: this.now,
      cursor: this.cursor,
    };
  }

  /** `fetch(ref)`: a reference's facet, or a refusal that says why (never which other references exist). */
  private async redeem(ctx: ConnCtx, ref: string): Promise<unknown> {
    if (ref.length > 512) throw new CapsError('ref_unknown', 'ref_unknown: no such reference');
    const row = this.refs.redeem(ref);
    const gate = ctx.gate(row);
    switch (row.facet) {
      case 'launcher':
        return makeLauncher(ctx, gate, parseLauncherTarget(row.target));
      case 'controller':
      case 'reader':
        return makeSessionFacet(ctx, gate, await this.live.open(row.target), row.facet);
      case 'responder': {
        const [sessionId, requestKey] = row.target.split(' ') as [string, string];
        const ls = this.live.get(sessionId);
        if (!ls) throw new CapsError('not_found', 'not_found: that permission request is no longer pending');
        return makeResponder(ctx, gate, ls, requestKey, gate);
      }
      case 'observer':
        return makeDataspaceFacet(ctx, gate, this.quotas);
      case 'peer':
        return makePeer(ctx, gate, parsePeerTarget(row.target), this.peerHooks);
    }
  }

  async close(): Promise<void> {
    for (const c of [...this.conns]) c.close('the host closed');
    for (const off of this.offs.splice(0)) off();
    this.agentFacts.close();
    this.gates.close();
    await this.live.close();
  }
}
