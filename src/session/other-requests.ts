/**
 * Agent→client requests Talaria does not answer itself (a vendor's `craft/drainMidTurnQueue`,
 * elicitation…): whoever fronts the session for a client (`talaria acp`'s editor link) takes them.
 * The latest taker answers; with none, the agent gets -32601 as it would from any client.
 */
import { RPC } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';

export type OtherRequestHandler = (method: string, params: unknown, signal: AbortSignal) => Promise<unknown>;

export class OtherRequests {
  private readonly takers: OtherRequestHandler[] = [];

  /** Takes the session's other requests until the returned function is called. */
  take(fn: OtherRequestHandler): () => void {
    this.takers.push(fn);
    return () => {
      const i = this.takers.lastIndexOf(fn);
      if (i >= 0) this.takers.splice(i, 1);
    };
  }

  get taken(): boolean {
    return this.takers.length > 0;
  }

  handle(method: string, params: unknown, signal: AbortSignal): Promise<unknown> {
    const fn = this.takers[this.takers.length - 1];
    if (!fn) return Promise.reject(notFound(method));
    return fn(method, params, signal);
  }
}

export function notFound(method: string): RequestError {
  return new RequestError(RPC.METHOD_NOT_FOUND, `Method not found: ${method}`, { method });
}
