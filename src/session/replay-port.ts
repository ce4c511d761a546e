/**
 * The recorded answers a replayed Session's requests wait for: when the log shows a client
 * request, the replay expects the Session call about to send it; the Session's port then takes
 * that request's answer, which the agent's recorded response settles later.
 */
import { TalariaError } from '../protocol/errors.js';
import type { SessionPort } from './core.js';

export interface Deferred {
  method: string;
  promise: Promise<unknown>;
  resolve(v: unknown): void;
  reject(e: unknown): void;
}

function deferred(method: string): Deferred {
  let resolve!: (v: unknown) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<unknown>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // a Session method may never claim it; never an unhandled rejection
  return { method, promise, resolve, reject };
}

type PromptCaps = SessionPort['promptCaps'];

/** Per session, the recorded requests' answers in log order. */
export class ReplayAnswers {
  private readonly fifo = new Map<string, Deferred[]>();

  /** Session `sid`'s port: each request takes the first expected answer of its method. */
  port(sid: string, caps: () => PromptCaps): SessionPort {
    const fifo = this.fifo;
    return {
      request<T>(method: string): Promise<T> {
        const queue = fifo.get(sid) ?? [];
        const i = queue.findIndex((d) => d.method === method);
        if (i < 0)
          return Promise.reject(new TalariaError('unsupported', `replay: the log has no ${method} request here`));
        return queue.splice(i, 1)[0]!.promise as Promise<T>;
      },
      notify: () => Promise.resolve(),
      get promptCaps() {
        return caps();
      },
    };
  }

  /** Queues the recorded request's answer for the Session call about to make it. */
  expect(sid: string, method: string): Deferred {
    const d = deferred(method);
    this.push(sid, d);
    return d;
  }

  /** Puts `d` back at the end of `sid`'s line (a queued prompt claims it later). */
  push(sid: string, d: Deferred): void {
    const q = this.fifo.get(sid) ?? [];
    q.push(d);
    this.fifo.set(sid, q);
  }

  /** Takes `d` back when no request claimed it; false when one did. */
  unclaimed(sid: string, d: Deferred): boolean {
    const q = this.fifo.get(sid) ?? [];
    const i = q.indexOf(d);
    if (i < 0) return false;
    q.splice(i, 1);
    return true;
  }
}
