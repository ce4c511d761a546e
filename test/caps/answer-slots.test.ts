import '../../src/caps/lockdown.js';
import { describe, it, expect } from 'vitest';
import { makeCapTP } from '@endo/captp';
import { E } from '../../src/caps/index.js';
import type { CapsBootstrap, CapsLauncher, CapsSession } from '../../src/caps/client.js';
import { answerSlotsIn, answerSlotsOut } from '../../src/caps/answer-slots.js';
import { testHost } from './helpers.js';

describe('caps: question ids renamed at the message boundary (the CapTP answers-table fix)', () => {
  it('renames only peer question ids coming in and answer ids going out; junk passes untouched', () => {
    expect(answerSlotsIn({ type: 'CTP_CALL', questionID: 'q-7', target: 'q-3', method: {} })).toMatchObject({
      questionID: 'q+7',
      target: 'q+3',
    });
    expect(answerSlotsIn({ type: 'CTP_CALL', questionID: 'q-7', target: 'o-1' })).toMatchObject({ target: 'o-1' });
    expect(answerSlotsIn({ type: 'CTP_BOOTSTRAP', questionID: 'q-1' })).toMatchObject({ questionID: 'q+1' });
    expect(answerSlotsIn({ type: 'CTP_RETURN', answerID: 'q-4' })).toEqual({ type: 'CTP_RETURN', answerID: 'q-4' });
    expect(answerSlotsIn({ type: 'CTP_DROP', slotID: 'q-4' })).toEqual({ type: 'CTP_DROP', slotID: 'q-4' });
    expect(answerSlotsOut({ type: 'CTP_RETURN', answerID: 'q+4', result: {} })).toMatchObject({ answerID: 'q-4' });
    expect(answerSlotsOut({ type: 'CTP_CALL', questionID: 'q-9' })).toEqual({ type: 'CTP_CALL', questionID: 'q-9' });
    for (const junk of [
      null,
      42,
      'x',
      [],
      { type: 'CTP_CALL', questionID: 42 },
      { type: 'CTP_CALL', questionID: 'q-' },
      { type: 'CTP_CALL' },
    ]) {
      expect(answerSlotsIn(junk)).toEqual(junk);
      expect(answerSlotsOut(junk)).toEqual(junk);
    }
  });

  it('a plain CapTP peer (no renaming on its side) still works with the host, pipelined chain included', async () => {
    const t = await testHost();
    // Both directions through real JSON, as on the wire.
    let toHost: (m: unknown) => void = () => {};
    const peer = makeCapTP(
      'plain-peer',
      (m) => queueMicrotask(() => toHost(JSON.parse(JSON.stringify(m)))),
      undefined,
      { gcImports: true },
    );
    const conn = t.host.connect((m) => queueMicrotask(() => peer.dispatch(JSON.parse(JSON.stringify(m)))));
    toHost = (m) => conn.dispatch(m);
    const bootstrap = (await peer.getBootstrap()) as CapsBootstrap;
    const launcher = E(bootstrap).fetch(t.launcher) as Promise<CapsLauncher>;
    const session = E(launcher).newSession() as Promise<CapsSession>;
    const r = await E(E(session).prompt('hello')).result();
    expect(r.stopReason).toBe('end_turn');
    expect((await E(session).info()).provider).toBe('demo');
    expect(conn.malformed).toBe(0);
    conn.close();
  });
});
