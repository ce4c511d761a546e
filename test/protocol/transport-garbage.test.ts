/**
 * A stdout that is no ACP at all (`--agent-cmd yes`, a shell, a log tail): cheap to reject line
 * by line, closed with a clear error once it is a flood, and never starving the timers. Every
 * assertion is on counters (lines, bytes, parse calls), none on wall time.
 */
import { describe, it, expect, afterEach, vi } from 'vitest';
import { PassThrough, Readable } from 'node:stream';
import { createTransport } from '../../src/protocol/transport.js';
import { connectAgent, type AgentConnection } from '../../src/protocol/connection.js';
import { spawnAgent } from '../../src/protocol/spawn.js';
import { ConnectionClosedError } from '../../src/protocol/errors.js';
import type { ProtocolErrorEvent } from '../../src/protocol/types.js';
import { PROJECT_DIR } from './fake-agents.js';

const update = (i: number) => ({
  jsonrpc: '2.0',
  method: 'session/update',
  params: {
    sessionId: 's',
    update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `t${i}` } },
  },
});
const line = (m: unknown) => JSON.stringify(m) + '\n';

function pair(extra: Partial<Parameters<typeof createTransport>[0]> = {}) {
  const input = new PassThrough();
  const output = new PassThrough();
  const events: ProtocolErrorEvent[] = [];
  const t = createTransport({ input, output, divert: () => true, onProtocolError: (e) => events.push(e), ...extra });
  return { input, t, events };
}

const open: AgentConnection[] = [];
afterEach(async () => {
  vi.restoreAllMocks();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe('transport: garbage on stdout', () => {
  it('`yes` as the agent: initialize fails at once with a clear error, not at its timeout; reading stops', async () => {
    const proc = await spawnAgent({ command: 'yes', cwd: PROJECT_DIR });
    const errors: ProtocolErrorEvent[] = [];
    const conn = connectAgent({
      process: proc,
      onSessionUpdate: () => {},
      onProtocolError: (e) => errors.push(e),
      terminateGraceMs: 300,
    });
    open.push(conn);
    const err = await conn.initialize({ timeoutMs: 5_000 }).then(
      () => undefined,
      (e: unknown) => e,
    );
    // A timeout would be a TalariaError 'timeout': the flood itself must be the reason.
    expect(err).toBeInstanceOf(ConnectionClosedError);
    expect((err as ConnectionClosedError).reason).toBe('stream_error');
    expect((err as Error).message).toMatch(/agent stdout is not ACP: 1000 lines in a row were not JSON-RPC/);
    // Memory and work bounded: the cap, not the flood, decides how much was read and reported.
    expect(errors).toHaveLength(1000);
    expect(errors[0]).toEqual({ kind: 'non_json', preview: 'y', bytes: 1 });
    expect(conn.stats.protocolErrors).toBe(1000);
    expect(conn.stats.bytesIn).toBeLessThan(4 * 1024 * 1024);
    // The flooding process does not outlive the connection.
    await proc.exited;
    expect(proc.hasExited).toBe(true);
  });

  it('lines that cannot start JSON are rejected without JSON.parse', () => {
    const parse = vi.spyOn(JSON, 'parse');
    const { input, events } = pair();
    input.write('y\nhello world\n⚠️ warning\n  # comment\n<html>\n');
    expect(events.map((e) => e.kind)).toEqual(['non_json', 'non_json', 'non_json', 'non_json', 'non_json']);
    expect(parse).not.toHaveBeenCalled();
    // A line that may be JSON is still parsed, so its report stays exact.
    input.write('42\n');
    expect(events.at(-1)).toMatchObject({ kind: 'invalid_jsonrpc', detail: 'not an object' });
    expect(parse).toHaveBeenCalledTimes(1);
  });

  it('1000 bad lines in a row close the connection; a valid frame in between resets the count', async () => {
    const { input, t, events } = pair();
    input.write('y\n'.repeat(999) + line(update(1)) + 'y\n'.repeat(999));
    expect(t.isClosed).toBe(false);
    expect(t.stats.framesIn).toBe(1);
    // The 1000th bad line closes; nothing after it is looked at, even in the same chunk.
    input.write('{"not":"rpc"}\n' + 'y\n'.repeat(10));
    const closed = await t.closed;
    expect(closed.cause).toBe('stream_error');
    expect(closed.error?.message).toBe('agent stdout is not ACP: 1000 lines in a row were not JSON-RPC');
    expect(events).toHaveLength(1999);
    expect(t.stats.protocolErrors).toBe(1999);
    expect(input.isPaused()).toBe(true);
  });

  it('blank lines count towards the cap without being reported', async () => {
    const { input, t, events } = pair({ garbage: { maxLines: 50 } });
    input.write('   \n'.repeat(60));
    expect((await t.closed).error?.message).toMatch(/50 lines in a row/);
    expect(events).toHaveLength(0);
  });

  it('bytes without a frame are capped too: an endless line, or a flood of empty lines', async () => {
    const endless = pair({ maxLineBytes: 100, garbage: { maxBytes: 10_000 } });
    for (let i = 0; i < 20 && !endless.t.isClosed; i++) endless.input.write('x'.repeat(1000));
    const a = await endless.t.closed;
    expect(a.error?.message).toMatch(/^agent stdout is not ACP: \d+ bytes arrived without a valid JSON-RPC frame$/);
    expect(endless.t.stats.bytesIn).toBeLessThanOrEqual(11_000);

    const empty = pair({ maxLineBytes: 100, garbage: { maxBytes: 10_000 } });
    for (let i = 0; i < 20 && !empty.t.isClosed; i++) empty.input.write('\n'.repeat(1000));
    expect((await empty.t.closed).cause).toBe('stream_error');
    expect(empty.t.stats.bytesIn).toBeLessThanOrEqual(11_000);
  });

  it('one oversize frame is not a flood (the byte cap is at least two line limits)', async () => {
    const { input, t, events } = pair({ maxLineBytes: 1000, garbage: { maxBytes: 10 } });
    input.write('{"jsonrpc":"2.0","method":"x","params":"' + 'z'.repeat(1500) + '"}\n' + line(update(1)));
    input.end();
    expect((await t.closed).cause).toBe('eof');
    expect(events.map((e) => e.kind)).toEqual(['too_large']);
    expect(t.stats.framesIn).toBe(1);
  });

  it('slow chatter over longer than the window is not a flood', async () => {
    let clock = 0;
    const { input, t } = pair({ now: () => clock, garbage: { maxLines: 10, windowMs: 1_000 } });
    for (let i = 0; i < 25; i++) {
      input.write('log line\n');
      clock += 200; // 5 lines per second: 10 lines take 2 s, longer than the window
    }
    expect(t.isClosed).toBe(false);
    input.write('y\n'.repeat(10)); // the same 10 lines at once are a flood
    expect((await t.closed).cause).toBe('stream_error');
  });

  it('yields to the event loop during a large burst, so timers run before it is all processed', async () => {
    const chunk = Buffer.from(line(update(0)).repeat(600)); // ~60 KB
    const total = chunk.length * 80; // ~5 MB, pushed synchronously as fast as the stream takes it
    let pushed = 0;
    const input = new Readable({
      read() {
        while (pushed < total) {
          pushed += chunk.length;
          if (!this.push(chunk)) return;
        }
        this.push(null);
      },
    });
    let diverted = 0;
    const t = createTransport({ input, output: new PassThrough(), divert: () => (diverted++, true) });
    let seenByTimer = -1;
    setImmediate(() => (seenByTimer = t.stats.bytesIn));
    expect((await t.closed).cause).toBe('eof');
    expect(seenByTimer).toBeGreaterThan(0);
    expect(seenByTimer).toBeLessThan(total);
    expect(t.stats.bytesIn).toBe(total);
    expect(diverted).toBe(600 * 80);
  });
});
