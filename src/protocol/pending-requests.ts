/**
 * The requests in flight: each one's timeout and abort signal, the mapping of its failure to a
 * typed error, and its rejection when the connection closes — once, with the close's error.
 */
import { TalariaError, type ConnectionClosedError } from './errors.js';
import { RequestError, withMethod } from './wire-error.js';

export interface RequestLimits {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/** Sends a request; `cancel` aborts it (the sender then stops waiting and rejects). */
export type SendRequest<T> = (cancel: AbortSignal) => Promise<T>;

export class PendingRequests {
  private readonly rejecters = new Set<(e: Error) => void>();
  private closedWith: ConnectionClosedError | undefined;

  constructor(
    /** A failure that is none of ours (the sender's connection broke): the owner closes. */
    private readonly onUntypedFailure: (e: unknown) => void,
  ) {}

  get size(): number {
    return this.rejecters.size;
  }

  run<T>(method: string, send: SendRequest<T>, { signal, timeoutMs }: RequestLimits = {}): Promise<T> {
    if (this.closedWith) return Promise.reject(this.closedWith);
    if (signal?.aborted)
      return Promise.reject(new TalariaError('aborted', `${method} aborted before it was sent`, { method }));
    return new Promise<T>((resolve, reject) => {
      const cancel = new AbortController();
      let why: 'aborted' | 'timeout' | undefined;
      const onAbort = (): void => {
        why ??= 'aborted';
        cancel.abort();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const timer =
        timeoutMs !== undefined
          ? setTimeout(() => {
              why ??= 'timeout';
              cancel.abort();
            }, timeoutMs)
          : undefined;
      const rejecters = this.rejecters;
      const fail = (e: Error): void => {
        cleanup();
        reject(e);
      };
      rejecters.add(fail);
      function cleanup(): void {
        rejecters.delete(fail);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      }
      send(cancel.signal).then(
        (result) => {
          if (!rejecters.has(fail)) return;
          cleanup();
          resolve(result);
        },
        (e: unknown) => {
          if (!rejecters.has(fail)) return; // already rejected (closed)
          if (why === 'timeout')
            return fail(
              new TalariaError('timeout', `${method} timed out after ${timeoutMs} ms`, { method, timeoutMs }),
            );
          if (why === 'aborted') return fail(new TalariaError('aborted', `${method} aborted`, { method }));
          if (e instanceof RequestError) return fail(withMethod(e, method));
          if (this.closedWith) return fail(this.closedWith);
          // The close handling will reject this request with the typed cause; make sure it runs.
          this.onUntypedFailure(e);
        },
      );
    });
  }

  /** Rejects every request in flight with `error`; later ones fail at once with it. */
  rejectAll(error: ConnectionClosedError): void {
    this.closedWith ??= error;
    for (const reject of [...this.rejecters]) reject(error);
    this.rejecters.clear();
  }
}
