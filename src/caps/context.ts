/** What every facet of one connection shares: the host's parts and the connection's lifetime. */
import type { Harness } from '../harness/index.js';
import type { Logger } from '../protocol/types.js';
import type { EventCursor } from './cursor.js';
import type { Dataspace } from './dataspace.js';
import type { Gate, Gates } from './gate.js';
import type { LiveSessions } from './live.js';
import type { Permissions } from './permissions.js';
import type { RefRow, RefStore } from './refs.js';

export interface HostParts {
  harness: Harness;
  refs: RefStore;
  gates: Gates;
  live: LiveSessions;
  permissions: Permissions;
  dataspace: Dataspace;
  logger: Logger;
  now: () => number;
  /** Under `talaria serve`: the store's event log, whose seq is the readers' cursor (else the session's own seq). */
  cursor?: EventCursor | undefined;
}

export interface ConnCtx extends HostParts {
  /** A gate for a reference, shut when this connection closes (or the reference is revoked). */
  gate(row: RefRow | undefined): Gate;
  /** Runs `fn` when the connection closes; returns an unregister function. */
  onClose(fn: () => void): () => void;
  /** The connection's id (facts it asserts are retracted when it closes). */
  readonly id: string;
}
