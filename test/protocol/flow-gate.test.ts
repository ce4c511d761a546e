/**
 * FlowGate and a transport given one: while held, input stops at the next chunk (what is in the
 * stream stays there), reading picks up where it stopped on release, and a transport that closes
 * while gated drains and forgets the gate.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { FlowGate } from '../../src/protocol/flow-gate.js';
import { createTransport } from '../../src/protocol/transport.js';
import type { RawMessage } from '../../src/protocol/types.js';

const line = (i: number) => `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { i } })}\n`;

function gated() {
  const gate = new FlowGate();
  const input = new PassThrough();
  const seen: number[] = [];
  const t = createTransport({
    input,
    output: new PassThrough(),
    gate,
    divert: (m: RawMessage) => (seen.push((m.params as { i: number }).i), true),
  });
  return { gate, input, seen, t };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('FlowGate', () => {
  it('counts holds; the last release wakes each waiter once; a forgotten waiter is not called', () => {
    const gate = new FlowGate();
    const calls: string[] = [];
    gate.hold();
    gate.hold();
    gate.whenOpen(() => calls.push('a'));
    const forget = gate.whenOpen(() => calls.push('b'));
    forget();
    gate.release();
    expect(gate.held).toBe(true);
    expect(calls).toEqual([]);
    gate.release();
    expect(gate.held).toBe(false);
    gate.release(); // one too many: nothing
    expect(calls).toEqual(['a']);
  });
});

describe('transport with a gate', () => {
  it('stops reading at the next chunk while held and goes on, in order, when released', async () => {
    const { gate, input, seen } = gated();
    input.write(line(0));
    await tick();
    expect(seen).toEqual([0]);
    gate.hold();
    input.write(line(1)); // read: the gate is checked after a chunk
    await tick();
    expect(seen).toEqual([0, 1]);
    expect(input.isPaused()).toBe(true);
    for (let i = 2; i < 50; i++) input.write(line(i));
    await tick();
    expect(seen).toEqual([0, 1]);
    gate.release();
    await tick();
    expect(seen).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(input.isPaused()).toBe(false);
  });

  it('closed while gated: input drains (a writer never blocks on a dead transport) and the gate forgets it', async () => {
    const { gate, input, seen, t } = gated();
    gate.hold();
    input.write(line(0));
    await tick();
    expect(input.isPaused()).toBe(true);
    t.close();
    expect(input.isPaused()).toBe(false);
    input.write(line(1));
    await tick();
    expect(seen).toEqual([0]); // closed: nothing more is delivered
    gate.release();
    expect(input.isPaused()).toBe(false);
  });
});
