/** The caps face's local errors (string codes); what crosses the wire is the message and the code. */
import { TalariaError } from '../protocol/errors.js';

export type CapsErrorCode =
  /** No reference with that secret (forged, mistyped, or minted by another home). */
  | 'ref_unknown'
  | 'ref_expired'
  | 'ref_revoked'
  /** A child may only narrow its parent (methods, expiry). */
  | 'ref_widening'
  /** The reference does not allow that method. */
  | 'method_denied'
  /** A per-connection quota (facts, rate) was exceeded. */
  | 'quota_exceeded'
  | 'not_found'
  | 'invalid_argument';

export class CapsError extends TalariaError<CapsErrorCode> {
  override readonly name = 'CapsError';
}
