/**
 * Connections tied to the token that opened them (issue 35 item 2): a revoke must end every face's
 * live connections — `/ws`, `/acp`, `/captp`, the sign-in pty and streamed HTTP answers (the run
 * stream) — not only the ones one face remembers. One registry, keyed by socket.
 */
import type { Duplex } from 'node:stream';
import type { TokenIdentity } from './tokens.js';

export class TokenBound {
  private readonly bound = new Map<Duplex, { identity: TokenIdentity; close: () => void }>();

  /** Ties `socket` to `identity` until it closes (or `release` is called); `close` ends it on revoke. */
  bind(socket: Duplex, identity: TokenIdentity, close: () => void = () => socket.destroy()): () => void {
    const entry = { identity, close };
    this.bound.set(socket, entry);
    // Released per answer on a keep-alive socket: its close listener goes too (they piled up, one per request).
    const release = () => {
      socket.off('close', release);
      if (this.bound.get(socket) === entry) this.bound.delete(socket);
    };
    socket.once('close', release);
    return release;
  }

  has(socket: Duplex): boolean {
    return this.bound.has(socket);
  }

  /** Ends every connection whose token is no longer accepted. */
  revoke(valid: (tokenId: string) => boolean): number {
    let n = 0;
    for (const [socket, b] of this.bound) {
      if (valid(b.identity.id)) continue;
      this.bound.delete(socket);
      b.close();
      n++;
    }
    return n;
  }

  get size(): number {
    return this.bound.size;
  }
}
