/** The fleet's local errors (string codes). */
import { TalariaError } from '../protocol/errors.js';

export type FleetErrorCode =
  /** This host's identity file cannot be read (it is never replaced silently). */
  | 'identity_damaged'
  /** Joining the fleet needs a join token and none was given (join.ts). */
  | 'join_token_required'
  /** The join token is not one the fleet minted. */
  | 'join_token_invalid'
  | 'join_token_expired'
  /** This host was revoked: it rejoins only with a new token. */
  | 'host_revoked'
  /** A member's public URL is plain HTTP off loopback. */
  | 'insecure_url'
  /** A pair request was refused (bad signature, stale, replayed, a host not online or revoked). */
  | 'pair_refused'
  /** Another host cannot be reached for forwarding (no URL, plain HTTP off loopback, its answer). */
  | 'peer_unreachable'
  /** A forwarded message is larger than a peer socket's frame (the owner would close the socket on it). */
  | 'too_large';

export class FleetError extends TalariaError<FleetErrorCode> {
  override readonly name = 'FleetError';
  /** What to do, for a face that shows it apart from the message. */
  readonly fix: string | undefined;
  constructor(code: FleetErrorCode, message: string, details?: Record<string, unknown>, o?: { fix?: string }) {
    super(code, o?.fix ? `${message}; ${o.fix}` : message, details);
    this.fix = o?.fix;
  }
}
