/**
 * The wire error is the ACP SDK's own class: what a handler throws reaches the peer as it is, and
 * what the peer answers is rejected as it came (no conversion either way). Its own module so that
 * what needs only the local errors (errors.ts: the CLI's fast path, the web) does not load the SDK.
 */
import { RequestError } from '@agentclientprotocol/sdk';

export { RequestError };
/** @deprecated The old name of RequestError (the same class: `instanceof WireError` still holds). */
export const WireError = RequestError;
/** @deprecated The old name of RequestError. */
export type WireError = RequestError;

/** Names the request a peer's error answered: the SDK's error does not say which, and a log line should. */
export function withMethod(e: RequestError, method: string): RequestError & { readonly method: string } {
  return Object.assign(e, { method });
}
