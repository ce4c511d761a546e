/**
 * A connection's view of the dataspace: assert (under per-connection quotas: facts held, asserts
 * per second), retract its own facts, observe by pattern. Observations push `{op, handle, fact}`
 * batches to the observer with promise backpressure; each is cut when the reference is revoked
 * or the connection closes, and everything the connection asserted is retracted on close.
 */
import './lockdown.js';
import harden from '@endo/harden';
import { E } from '@endo/far';
import { makeExo } from '@endo/exo';
import type { ConnCtx } from './context.js';
import type { Fact, Pattern, Primitive } from './dataspace.js';
import { CapsError } from './errors.js';
import type { Gate } from './gate.js';
import { DataspaceI, SubscriptionI } from './guards.js';
import { Pusher } from './pusher.js';

export interface Quotas {
  /** Facts one connection may hold at once. */
  maxFacts: number;
  /** Asserts per second per connection (a token bucket of that size). */
  assertsPerSecond: number;
}

export interface FactChange {
  op: 'add' | 'del';
  handle: string;
  fact: Fact;
}

export interface FactSink {
  onFacts(batch: readonly FactChange[]): unknown;
}

export function makeDataspaceFacet(ctx: ConnCtx, gate: Gate, quotas: Quotas): unknown {
  let tokens = quotas.assertsPerSecond;
  let refilled = ctx.now();
  const take = (): void => {
    const now = ctx.now();
    tokens = Math.min(quotas.assertsPerSecond, tokens + ((now - refilled) / 1000) * quotas.assertsPerSecond);
    refilled = now;
    if (tokens < 1)
      throw new CapsError('quota_exceeded', 'quota_exceeded: too many asserts per second on this connection');
    tokens -= 1;
  };
  return makeExo('Dataspace', DataspaceI, {
    assert(fact: unknown) {
      gate.check('assert');
      if (ctx.dataspace.countOf(ctx.id) >= quotas.maxFacts)
        throw new CapsError('quota_exceeded', `quota_exceeded: a connection may hold at most ${quotas.maxFacts} facts`);
      take();
      return ctx.dataspace.assert(ctx.id, fact as Fact);
    },
    retract(handle: unknown) {
      gate.check('retract');
      return ctx.dataspace.retract(ctx.id, handle as string);
    },
    observe(pattern: unknown, observer: unknown) {
      gate.check('observe');
      for (const v of Object.values(pattern as Record<string, unknown>)) {
        if (!(v === null || ['string', 'number', 'boolean'].includes(typeof v)))
          throw new CapsError(
            'invalid_argument',
            'invalid_argument: a pattern matches fields to strings, numbers, booleans or null',
          );
      }
      let off = (): void => {};
      // An observer that fails or falls behind by too much is dropped (its connection closed, or it flooded).
      const pusher = new Pusher<FactChange>((batch) => E(observer as FactSink).onFacts(harden(batch)), {
        onClose: () => off(),
      });
      off = ctx.dataspace.observe(pattern as Record<string, Primitive> as Pattern, {
        added: (handle, fact) => pusher.push(harden({ op: 'add', handle, fact })),
        removed: (handle, fact) => pusher.push(harden({ op: 'del', handle, fact })),
      });
      const stop = (): void => {
        off();
        pusher.close();
      };
      const offShut = gate.onShut(stop);
      const offConn = ctx.onClose(stop);
      return makeExo('Subscription', SubscriptionI, {
        cancel() {
          offShut();
          offConn();
          stop();
        },
      });
    },
  });
}
