/**
 * Heartbeats for one `/ws` connection: dead means "read nothing for a while", not "no pong in a beat".
 * Why: a ping goes out behind whatever the socket already holds, so a live client with a few MB of
 * backlog on a slow link cannot answer it within a beat; dropping it as dead (4002) would cut the
 * very client the bounded queue is meant to tell to resync. Evidence that a client reads:
 *  - a pong (the beat's ping, or a marker ping after every MARK_BYTES of data: pongs keep coming
 *    while the client works through a long backlog);
 *  - the kernel took more of this socket's bytes after Node found its buffers full (Node held a
 *    backlog): room in them means the peer acknowledged data, i.e. read it.
 * A beat without evidence is quiet. One quiet beat drops a client with nothing unread (an idle dead
 * peer, as before); a client with more than MARK_BYTES that the kernel took but it has not confirmed
 * (a ping's payload is its position in the stream, its pong confirms it) may still be reading them,
 * invisibly to Node (~4 MB of kernel buffers on loopback), and is dropped after QUIET_WITH_UNREAD.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';

/** A marker ping after this many bytes of data, so a reading client's pongs come back as it reads. */
export const MARK_BYTES = 256 * 1024;

/** Node's own counters, not in its types: bytes handed to the handle, and what libuv still holds of them. */
type CountingSocket = Socket & { _bytesDispatched?: number; _handle?: { writeQueueSize?: number } | null };

/** Bytes of this socket's writes the kernel has taken so far. */
export function acceptedBytes(ws: WebSocket): number {
  const sock = (ws as unknown as { _socket?: CountingSocket })._socket;
  if (!sock) return 0;
  if (typeof sock._bytesDispatched === 'number') return sock._bytesDispatched - (sock._handle?.writeQueueSize ?? 0);
  // Coarser (a write in flight counts only once done), still only moving when the peer reads.
  return (sock.bytesWritten ?? 0) - sock.writableLength;
}

/** Quiet beats before a client with unread bytes in the kernel is dropped. */
export const QUIET_WITH_UNREAD = 3;

export class Heartbeat {
  /** A pong since the last beat. */
  private heard = true;
  /** The stream position the client confirmed last (a pong's payload). */
  private confirmed = 0;
  /** The kernel's count when Node first found it full in this beat (undefined: not found full). */
  private fullAt: number | undefined;
  private quiet = 0;
  private sinceMark = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly ws: WebSocket,
    beatMs: number,
    onDead: () => void,
  ) {
    ws.on('pong', (data: Buffer) => {
      this.heard = true;
      const at = Number(data.toString('latin1'));
      if (Number.isSafeInteger(at) && at > this.confirmed) this.confirmed = at;
    });
    this.timer = setInterval(() => {
      const accepted = acceptedBytes(ws);
      const took = this.fullAt !== undefined && accepted > this.fullAt;
      if (this.heard || took) this.quiet = 0;
      else if (++this.quiet >= (accepted - this.confirmed > MARK_BYTES ? QUIET_WITH_UNREAD : 1)) {
        this.stop();
        onDead();
        return;
      }
      this.heard = false;
      this.fullAt = ws.bufferedAmount > 0 ? accepted : undefined;
      this.ping();
    }, beatMs);
    this.timer.unref();
  }

  /** A ping carrying its position in the stream (what was written before it). */
  private ping(): void {
    this.ws.ping(String(acceptedBytes(this.ws) + this.ws.bufferedAmount));
  }

  /** Data of `bytes` went to the socket: a full kernel noted for the beat, and a marker ping after every MARK_BYTES. */
  sent(bytes: number): void {
    if (this.fullAt === undefined && this.ws.bufferedAmount > 0) this.fullAt = acceptedBytes(this.ws);
    this.sinceMark += bytes;
    if (this.sinceMark < MARK_BYTES) return;
    this.sinceMark = 0;
    this.ping();
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
