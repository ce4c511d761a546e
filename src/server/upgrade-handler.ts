import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { TokenIdentity } from './tokens.js';

/** A WebSocket path mounted on the server (`/acp`, the pty channel): gets the upgrade once its token is checked. */
export type UpgradeHandler = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  identity: TokenIdentity,
) => void | Promise<void>;
