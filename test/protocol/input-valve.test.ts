/** InputValve alone: input flows only while no hold (full, yield, gate, abandoned) is on. */
import { describe, it, expect } from 'vitest';
import { PassThrough } from 'node:stream';
import { InputValve } from '../../src/protocol/input-valve.js';
import { FlowGate } from '../../src/protocol/flow-gate.js';

const tick = () => new Promise((r) => setImmediate(r));

function flowing(): PassThrough {
  const input = new PassThrough();
  input.on('data', () => {});
  return input;
}

describe('InputValve', () => {
  it('full pauses until unfull', () => {
    const input = flowing();
    const valve = new InputValve(input, undefined);
    valve.setFull();
    expect(input.isPaused()).toBe(true);
    expect(valve.isFull).toBe(true);
    valve.unfull();
    expect(input.isPaused()).toBe(false);
  });

  it('yields one event-loop turn after a megabyte, and only then', async () => {
    const input = flowing();
    const valve = new InputValve(input, undefined);
    valve.afterRead(1024 * 1024 - 1);
    expect(input.isPaused()).toBe(false);
    valve.afterRead(1);
    expect(input.isPaused()).toBe(true);
    await tick();
    expect(input.isPaused()).toBe(false);
  });

  it('a yield ending while full keeps the input paused', async () => {
    const input = flowing();
    const valve = new InputValve(input, undefined);
    valve.afterRead(1024 * 1024);
    valve.setFull();
    await tick();
    expect(input.isPaused()).toBe(true);
    valve.unfull();
    expect(input.isPaused()).toBe(false);
  });

  it('stops at a held gate until it opens', () => {
    const input = flowing();
    const gate = new FlowGate();
    const valve = new InputValve(input, gate);
    gate.hold();
    valve.afterRead(10);
    expect(input.isPaused()).toBe(true);
    gate.release();
    expect(input.isPaused()).toBe(false);
  });

  it('finish drains a full or gated input and forgets the gate', () => {
    const input = flowing();
    const gate = new FlowGate();
    const valve = new InputValve(input, gate);
    gate.hold();
    valve.afterRead(10);
    valve.finish();
    expect(input.isPaused()).toBe(false);
    expect(valve.isDraining).toBe(true);
    input.pause();
    gate.release(); // the forgotten wake-up does not resume
    expect(input.isPaused()).toBe(true);
  });

  it('abandoned: nothing resumes it', async () => {
    const input = flowing();
    const valve = new InputValve(input, undefined);
    valve.afterRead(1024 * 1024);
    valve.abandon();
    await tick();
    expect(input.isPaused()).toBe(true);
  });
});
