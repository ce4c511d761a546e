/**
 * The exported objects (Exo, interface-guarded): session controller / reader, turn (the prompt's
 * revoker), subscription, permission responder. Every method first checks its caretaker gate, so
 * revoking the reference behind an object — or any ancestor — cuts it and stops its pushes.
 */
import './lockdown.js';
import harden from '@endo/harden';
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import type { SessionEvent } from '../session/events.js';
import type { PromptInput } from '../session/session.js';
import { passable } from './clone.js';
import type { ConnCtx } from './context.js';
import type { StoreEvent } from './cursor.js';
import { CapsError } from './errors.js';
import type { Gate } from './gate.js';
import { ResponderI, SessionI, SubscriptionI, TurnI } from './guards.js';
import type { LiveSession } from './live.js';
import { Pusher } from './pusher.js';
import { FACET_METHODS, type RefFacet } from './refs.js';

/** A sink the host pushes session events to: `onEvents(batch)`; its promise is the backpressure. */
export interface EventSink {
  onEvents(batch: readonly unknown[]): unknown;
}

// Exo methods take `unknown` (see captp-notes.md): the guards above check the real shapes.

/** An event pushed to a sink: the session's own (caps-only host) or the store's (under `talaria serve`). */
type Pushed = SessionEvent | StoreEvent;

/** Whether events pushed through `gate` carry responders: a controller that may answer permissions. */
const answers = (gate: Gate, facet: RefFacet): boolean => facet === 'controller' && gate.allows('answerPermission');

function sinkPusher(
  ctx: ConnCtx,
  gate: Gate,
  sink: unknown,
  ls: LiveSession,
  responders: boolean,
): { push: (e: Pushed) => void; pusher: Pusher<unknown> } {
  const pusher: Pusher<unknown> = new Pusher((batch) => E(sink as EventSink).onEvents(harden(batch)), {
    onClose: (why, err) => {
      if (why !== 'closed')
        ctx.logger.debug('caps: a sink was dropped', { why, error: err instanceof Error ? err.message : String(err) });
    },
  });
  const offGate = gate.onShut(() => pusher.close());
  const offConn = ctx.onClose(() => pusher.close());
  const origClose = pusher.close.bind(pusher);
  pusher.close = (why, err) => {
    offGate();
    offConn();
    origClose(why, err);
  };
  const push = (e: Pushed): void => {
    if (responders && e.type === 'permission.asked') {
      const key = String(e.requestKey);
      // The responder travels with the event: whoever gets the event can answer, or hand it on.
      // Asked of the session itself, whichever source (session, store log) delivered the event first.
      if (ctx.permissions.pending(ls, key))
        return pusher.push(harden({ ...passable(e), responder: makeResponder(ctx, gate, ls, key) }));
    }
    pusher.push(passable(e));
  };
  return { push, pusher };
}

export function makeSessionFacet(ctx: ConnCtx, gate: Gate, ls: LiveSession, facet: RefFacet): unknown {
  const hs = ls.hs;
  const check = (m: string): void => {
    gate.check(m);
    if (facet === 'reader' && !FACET_METHODS.reader.includes(m))
      throw new CapsError('method_denied', `method_denied: a reader cannot ${m}`);
  };
  const self: unknown = makeExo('Session', SessionI, {
    prompt(blocks: unknown, sink?: unknown) {
      check('prompt');
      let stream: ReturnType<typeof sinkPusher> | undefined;
      let off: (() => void) | undefined;
      let turnId: string | undefined;
      if (sink !== undefined) {
        stream = sinkPusher(ctx, gate, sink, ls, answers(gate, facet));
        const s = stream;
        const each = (e: Pushed): void => {
          s.push(e);
          if (e.type === 'turn.ended' && e.turnId === turnId) off?.();
        };
        off = ctx.cursor ? ctx.cursor.subscribe(hs.id, each) : hs.subscribe(each);
        gate.onShut(() => off?.());
      }
      const turn = hs.prompt(blocks as PromptInput);
      turnId = turn.id;
      // The result arrives after every event of the turn was acknowledged by the sink; a revoked
      // reference gets a refusal instead.
      const result = new Promise<unknown>((resolve, reject) => {
        const offShut = gate.onShut(() =>
          reject(new CapsError('ref_revoked', 'ref_revoked: this reference was revoked')),
        );
        turn.result.then(
          async (r) => {
            await stream?.pusher.drained();
            offShut();
            resolve(passable(r));
          },
          (err: unknown) => {
            offShut();
            reject(err instanceof Error ? err : new Error(String(err)));
          },
        );
      });
      result.catch(() => {});
      return makeExo('Turn', TurnI, {
        id() {
          return turn.id;
        },
        result() {
          gate.check('prompt');
          return result;
        },
        async cancel() {
          gate.check('cancel');
          return passable(await hs.cancel());
        },
      });
    },
    async cancel() {
      check('cancel');
      return passable(await hs.cancel());
    },
    async setModel(m: unknown) {
      check('setModel');
      await hs.setModel(m as string);
      return passable(hs.catalog.model ?? {});
    },
    async setMode(m: unknown) {
      check('setMode');
      await hs.setMode(m as string);
      return passable(hs.catalog.mode ?? {});
    },
    async fork() {
      check('fork');
      const forked = await ctx.harness.workspaces.open(hs.workspace).forkSession(hs.id);
      const child = ctx.live.adopt(forked);
      const minted = ctx.refs.mint({
        facet: 'controller',
        target: forked.id,
        parentId: gate.refId,
        label: `fork of ${hs.id}`,
      });
      return makeSessionFacet(ctx, ctx.gate(minted.row), child, 'controller');
    },
    subscribe(sink: unknown, afterSeq?: unknown) {
      check('subscribe');
      const { push, pusher } = sinkPusher(ctx, gate, sink, ls, answers(gate, facet));
      // Older than what can be answered exactly: the thread as it is now (at `seq`), then live events.
      const snapshotAt = (seq: number): void =>
        pusher.push(passable({ type: 'thread.snapshot', sessionId: hs.id, seq, entries: hs.thread.entries }));
      let off: () => void;
      const cursor = ctx.cursor;
      if (cursor) {
        // The store's log: read and subscribe in one synchronous step (appends fan out synchronously), so nothing falls between.
        const head = cursor.head(hs.id);
        const missed = typeof afterSeq === 'number' ? cursor.after(hs.id, afterSeq) : [];
        if (missed === undefined) snapshotAt(head);
        else for (const e of missed) push(e);
        off = cursor.subscribe(hs.id, push);
      } else {
        const after = typeof afterSeq === 'number' ? afterSeq : ls.lastSeq;
        const first = ls.buffer[0]?.seq ?? ls.lastSeq + 1;
        if (after < first - 1) snapshotAt(ls.lastSeq);
        else for (const e of ls.buffer) if (e.seq > after) push(e);
        off = hs.subscribe(push);
      }
      const stop = (): void => {
        off();
        pusher.close();
      };
      gate.onShut(stop);
      return makeExo('Subscription', SubscriptionI, {
        cancel() {
          stop();
        },
      });
    },
    snapshot() {
      check('snapshot');
      return passable({
        sessionId: hs.id,
        seq: ctx.cursor ? ctx.cursor.head(hs.id) : ls.lastSeq,
        entries: hs.thread.entries,
        state: hs.state,
      });
    },
    info() {
      check('info');
      const row = hs.stored();
      return passable({
        id: hs.id,
        provider: hs.provider,
        cwd: row.cwd,
        title: row.title ?? '',
        state: hs.state,
        model: hs.catalog.model?.currentId ?? '',
        facet,
      });
    },
    reader() {
      check('reader');
      return makeSessionFacet(ctx, gate, ls, 'reader');
    },
    answerPermission(requestKey: unknown, optionId: unknown) {
      check('answerPermission');
      // The broker answers any key it holds: only this session's requests are this reference's to answer.
      if (!ctx.permissions.pending(ls, requestKey as string))
        throw new CapsError('not_found', 'not_found: this session has no pending permission request with that key');
      return passable(hs.answerPermission(requestKey as string, { optionId: optionId as string }, `caps:${ctx.id}`));
    },
    share(o: unknown) {
      check('share');
      const opts = o as { facet: 'controller' | 'reader'; expiresIn?: number; methods?: string[] };
      if (facet === 'reader' && opts.facet !== 'reader')
        throw new CapsError('ref_widening', 'ref_widening: a reader can only share a reader');
      const minted = ctx.refs.mint({
        facet: opts.facet,
        target: hs.id,
        parentId: gate.refId,
        // Without a list: what the facet has, narrowed to this reference's methods.
        ...(opts.methods ? { methods: opts.methods } : {}),
        ...(opts.expiresIn !== undefined ? { expiresIn: opts.expiresIn } : {}),
      });
      return minted.uri;
    },
  });
  return self;
}

/** A one-shot responder for one permission request: first answer wins; it can be shared on. */
export function makeResponder(ctx: ConnCtx, parent: Gate, ls: LiveSession, requestKey: string, own?: Gate): unknown {
  const p = ctx.permissions.pending(ls, requestKey);
  if (!p) throw new CapsError('not_found', 'not_found: that permission request is no longer pending');
  // Its own gate: shut at the first answer (here or anywhere), when the session reference is revoked, or the connection closes.
  const gate = own ?? ctx.gate(undefined);
  gate.onShut(parent.onShut(() => gate.shut('the session reference was revoked')));
  ctx.permissions.hold(ls, requestKey, gate);
  return makeExo('Permission', ResponderI, {
    details() {
      gate.check('details');
      return passable({
        requestKey,
        sessionId: ls.hs.id,
        toolCallId: p.toolCallId,
        title: p.title ?? '',
        options: p.options,
      });
    },
    answer(optionId: unknown) {
      gate.check('answer');
      const r = ls.hs.answerPermission(requestKey, { optionId: optionId as string }, `caps:${ctx.id}`);
      if (r.ok) gate.shut('this permission request was already answered');
      return passable(r);
    },
    share(o?: unknown) {
      gate.check('share');
      const expiresIn = (o as { expiresIn?: number } | undefined)?.expiresIn;
      const minted = ctx.refs.mint({
        facet: 'responder',
        target: `${ls.hs.id} ${requestKey}`,
        parentId: parent.refId,
        methods: ['details', 'answer', 'share'],
        ...(expiresIn !== undefined ? { expiresIn } : {}),
      });
      return minted.uri;
    },
  });
}
