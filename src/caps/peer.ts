/**
 * The peer facet (docs/fleet.md §3): what another host of a fleet may do here with the reference
 * this host minted for it when it paired — open and drive the sessions this host owns, nothing
 * else. Each session it opens gets a controller that is a child of the pair reference, so revoking
 * the pair (the peer host revoked) cuts every session object it holds at once.
 */
import './lockdown.js';
import { makeExo } from '@endo/exo';
import { passable } from './clone.js';
import type { HarnessSession } from '../harness/index.js';
import type { ConnCtx } from './context.js';
import { CapsError } from './errors.js';
import { makeSessionFacet } from './facets.js';
import type { Gate } from './gate.js';
import { PeerI } from './guards.js';

/** A peer reference's target: the host it was minted for and the host that minted it. */
export interface PeerTarget {
  peer: string;
  owner: string;
}

export function parsePeerTarget(target: string): PeerTarget {
  return JSON.parse(target) as PeerTarget;
}

/** What the host that serves peers knows and the caps face does not (`talaria serve` gives it). */
export interface PeerHooks {
  /** This host's fleet id: a reference minted by another host is not honoured here. */
  readonly hostId: string;
  /** Whether this host may open `sessionId` (no other live host owns it). */
  owns(sessionId: string): boolean;
  /** The session as the server's clients see it (its snapshot, at its event seq). */
  snapshot(sessionId: string): unknown;
  /** Steers the session (the server's steer, so both hosts answer alike). */
  steer(hs: HarnessSession, body: { text?: string; queued?: string }): Promise<unknown>;
  /** The peer host is still a member in good standing (online, not revoked). */
  peerOk(peerId: string): boolean;
}

export function makePeer(ctx: ConnCtx, gate: Gate, target: PeerTarget, hooks: PeerHooks | undefined): unknown {
  const usable = (): PeerHooks => {
    if (!hooks || target.owner !== hooks.hostId) throw new CapsError('ref_unknown', 'ref_unknown: no such reference');
    if (!hooks.peerOk(target.peer))
      throw new CapsError('ref_revoked', 'ref_revoked: the peer host is not a member now');
    return hooks;
  };
  const mine = (h: PeerHooks, sessionId: string): void => {
    if (!h.owns(sessionId))
      throw new CapsError('not_found', `not_found: session ${sessionId} is not owned by this host`);
  };
  return makeExo('PeerHost', PeerI, {
    async openSession(sessionId: unknown) {
      gate.check('openSession');
      const h = usable();
      const id = String(sessionId);
      mine(h, id);
      const ls = await ctx.live.open(id);
      const minted = ctx.refs.mint({
        facet: 'controller',
        target: ls.hs.id,
        parentId: gate.refId,
        label: `peer ${target.peer}`,
      });
      return makeSessionFacet(ctx, ctx.gate(minted.row), ls, 'controller');
    },
    async snapshot(sessionId: unknown) {
      gate.check('snapshot');
      const h = usable();
      const id = String(sessionId);
      mine(h, id);
      return passable(h.snapshot(id));
    },
    async steer(sessionId: unknown, body: unknown) {
      gate.check('steer');
      const h = usable();
      const id = String(sessionId);
      mine(h, id);
      const ls = await ctx.live.open(id);
      return passable(await h.steer(ls.hs, body as { text?: string; queued?: string }));
    },
    info() {
      gate.check('info');
      return passable({ host: target.owner, peer: target.peer });
    },
  });
}
