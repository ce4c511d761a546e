/**
 * The parts connectAgent is assembled from, alone: the pending-request table, the message
 * router, the close latch (connection.test.ts and connection-process.test.ts pin them together).
 */
import { describe, it, expect, vi } from 'vitest';
import { PendingRequests } from '../../src/protocol/pending-requests.js';
import { MessageRouter } from '../../src/protocol/message-router.js';
import { CloseLatch, toClosedError, type CloseFacts } from '../../src/protocol/connection-close.js';
import { ConnectionClosedError, TalariaError, type CloseCause } from '../../src/protocol/errors.js';
import { RequestError } from '../../src/protocol/wire-error.js';
import { silentLogger, type Logger, type RawMessage } from '../../src/protocol/types.js';

/** A request the test answers by hand; `cancel` is the signal the table gave it. */
function manual<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  let cancel: AbortSignal | undefined;
  const send = (c: AbortSignal) => {
    cancel = c;
    return new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
  };
  return { send, resolve: (v: T) => resolve(v), reject: (e: unknown) => reject(e), cancel: () => cancel };
}

const CAUSES: CloseFacts[] = [
  { cause: 'eof' },
  { cause: 'stream_error', streamError: new Error('EPIPE') },
  { cause: 'exit', exitCode: 3, signal: null, stderrTail: 'boom' },
  { cause: 'closed' },
];

describe('PendingRequests', () => {
  it.each(CAUSES)('rejects every pending request once with the close error ($cause)', async (facts) => {
    const table = new PendingRequests(() => {});
    const a = manual<number>();
    const b = manual<number>();
    const pa = table.run('x/a', a.send);
    const pb = table.run('x/b', b.send);
    expect(table.size).toBe(2);
    const error = toClosedError(facts);
    table.rejectAll(error);
    table.rejectAll(toClosedError({ cause: 'closed' })); // a second close changes nothing
    expect(table.size).toBe(0);
    await expect(pa).rejects.toBe(error);
    await expect(pb).rejects.toBe(error);
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect(error.reason).toBe(facts.cause as CloseCause);
    // The sender's late answer or failure is ignored, and later requests fail at once.
    a.resolve(1);
    b.reject(new Error('ACP connection closed'));
    await expect(table.run('x/c', manual<number>().send)).rejects.toBe(error);
  });

  it('resolves with the result and forgets the request', async () => {
    const table = new PendingRequests(() => {});
    const a = manual<string>();
    const p = table.run('x/a', a.send);
    a.resolve('ok');
    await expect(p).resolves.toBe('ok');
    expect(table.size).toBe(0);
  });

  it('times out: cancels the send and rejects with a timeout TalariaError', async () => {
    vi.useFakeTimers();
    try {
      const table = new PendingRequests(() => {});
      const a = manual<string>();
      const p = table.run('x/slow', a.send, { timeoutMs: 50 });
      const caught = p.catch((e: unknown) => e);
      vi.advanceTimersByTime(50);
      expect(a.cancel()?.aborted).toBe(true);
      a.reject(new Error('cancelled'));
      const e = (await caught) as TalariaError;
      expect(e).toBeInstanceOf(TalariaError);
      expect(e.code).toBe('timeout');
      expect(e.details).toEqual({ method: 'x/slow', timeoutMs: 50 });
    } finally {
      vi.useRealTimers();
    }
  });

  it('aborts: before sending, and while pending', async () => {
    const table = new PendingRequests(() => {});
    const before = new AbortController();
    before.abort();
    const send = vi.fn(manual<string>().send);
    await expect(table.run('x/a', send, { signal: before.signal })).rejects.toMatchObject({ code: 'aborted' });
    expect(send).not.toHaveBeenCalled();

    const during = new AbortController();
    const a = manual<string>();
    const p = table.run('x/b', a.send, { signal: during.signal });
    during.abort();
    expect(a.cancel()?.aborted).toBe(true);
    a.reject(new Error('cancelled'));
    await expect(p).rejects.toMatchObject({ code: 'aborted', message: 'x/b aborted' });
  });

  it("passes the agent's RequestError through, named with its method", async () => {
    const table = new PendingRequests(() => {});
    const a = manual<string>();
    const p = table.run('x/a', a.send);
    const err = new RequestError(-32602, 'Invalid params');
    a.reject(err);
    await expect(p).rejects.toBe(err);
    expect((err as RequestError & { method?: string }).method).toBe('x/a');
  });

  it('an untyped failure goes to the owner, and the request waits for the close', async () => {
    const untyped = vi.fn();
    const table = new PendingRequests(untyped);
    const a = manual<string>();
    const p = table.run('x/a', a.send);
    const failure = new Error('ACP connection closed');
    a.reject(failure);
    await vi.waitFor(() => expect(untyped).toHaveBeenCalledWith(failure));
    expect(table.size).toBe(1);
    const error = toClosedError({ cause: 'eof' });
    table.rejectAll(error);
    await expect(p).rejects.toBe(error);
  });
});

describe('MessageRouter', () => {
  const logs: string[] = [];
  const logger: Logger = { ...silentLogger, warn: (msg) => void logs.push(msg) };

  it('takes session/update, drops answers to ids we never sent, lets the rest through', () => {
    const updates: unknown[] = [];
    const router = new MessageRouter(new Set(['fs/read_text_file']), (p) => updates.push(p), logger);
    expect(router.divert({ jsonrpc: '2.0', method: 'session/update', params: { n: 1 } })).toBe(true);
    expect(updates).toEqual([{ n: 1 }]);
    // A request named session/update is not the notification.
    expect(router.divert({ jsonrpc: '2.0', id: 9, method: 'session/update', params: {} })).toBe(false);
    expect(router.divert({ jsonrpc: '2.0', id: 5, result: {} })).toBe(true);
    expect(logs).toContain('dropped a response to an unknown request');
    router.outgoing({ jsonrpc: '2.0', id: 5, method: 'session/prompt', params: {} });
    expect(router.divert({ jsonrpc: '2.0', id: 5, result: {} })).toBe(false);
    // Answered once: a second answer is dropped.
    expect(router.divert({ jsonrpc: '2.0', id: 5, result: {} })).toBe(true);
    expect(router.divert({ jsonrpc: '2.0', method: '_other' })).toBe(false);
  });

  it('keeps the raw params of handled requests until read or answered', () => {
    const router = new MessageRouter(new Set(['fs/read_text_file']), () => {}, silentLogger);
    const raw = { path: '/a', extra: true };
    router.divert({ jsonrpc: '2.0', id: 1, method: 'fs/read_text_file', params: raw } as RawMessage);
    expect(router.takeRawParams(1, { path: '/a' })).toBe(raw);
    expect(router.takeRawParams(1, 'parsed')).toBe('parsed');
    router.divert({ jsonrpc: '2.0', id: 2, method: 'fs/read_text_file', params: raw } as RawMessage);
    router.outgoing({ jsonrpc: '2.0', id: 2, result: {} });
    expect(router.takeRawParams(2, 'parsed')).toBe('parsed');
    // Unhandled methods keep nothing.
    router.divert({ jsonrpc: '2.0', id: 3, method: 'x/other', params: raw } as RawMessage);
    expect(router.takeRawParams(3, 'parsed')).toBe('parsed');
  });

  it('a throwing session/update consumer is logged, the update still consumed', () => {
    const errors: string[] = [];
    const router = new MessageRouter(
      new Set(),
      () => {
        throw new Error('consumer bug');
      },
      { ...silentLogger, error: (msg) => void errors.push(msg) },
    );
    expect(router.divert({ jsonrpc: '2.0', method: 'session/update', params: {} })).toBe(true);
    expect(errors).toEqual(['onSessionUpdate threw']);
  });

  it('clear forgets what was awaited', () => {
    const router = new MessageRouter(new Set(), () => {}, silentLogger);
    router.outgoing({ jsonrpc: '2.0', id: 7, method: 'x', params: {} });
    router.clear();
    expect(router.divert({ jsonrpc: '2.0', id: 7, result: {} })).toBe(true);
  });
});

describe('CloseLatch', () => {
  it('the first cause wins: one teardown, the signal aborted with the error, closed resolved', async () => {
    const teardown = vi.fn();
    const latch = new CloseLatch(teardown);
    expect(latch.isClosed).toBe(false);
    latch.close({ cause: 'exit', exitCode: 1, signal: null, stderrTail: 'bad' });
    latch.close({ cause: 'eof' });
    expect(teardown).toHaveBeenCalledTimes(1);
    const info = await latch.closed;
    expect(info.cause).toBe('exit');
    expect(info.exitCode).toBe(1);
    expect(latch.error).toBe(info.error);
    expect(latch.signal.reason).toBe(info.error);
    expect(info.error.message).toBe('agent exited with code 1; stderr: bad');
  });

  it.each(CAUSES)('toClosedError names each cause ($cause)', (facts) => {
    const e = toClosedError(facts);
    expect(e.reason).toBe(facts.cause);
    expect(e.code).toBe('connection_closed');
    if (facts.cause === 'stream_error') expect(e.cause).toBe(facts.streamError);
  });
});
