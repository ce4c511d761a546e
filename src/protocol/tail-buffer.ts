/** A terminal's output as the agent reads it: the last bytes, cut at UTF-8 character boundaries. */
/**
 * Keeps the last `limit` bytes. Reads start at a UTF-8 character boundary (the cut may land
 * mid-character) and, while the process runs, stop before an incomplete trailing character.
 */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = false;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.bytes += chunk.length;
    while (this.bytes > this.limit) {
      const first = this.chunks[0]!;
      const excess = this.bytes - this.limit;
      this.dropped = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
      }
    }
  }

  read(final: boolean): { text: string; truncated: boolean } {
    const all = Buffer.concat(this.chunks, this.bytes);
    let start = 0;
    if (this.dropped) while (start < all.length && start < 4 && isContinuation(all[start]!)) start++;
    const end = final ? all.length : completeEnd(all, start);
    return { text: all.subarray(start, end).toString('utf8'), truncated: this.dropped };
  }
}

function isContinuation(b: number): boolean {
  return (b & 0xc0) === 0x80;
}

/** Length of `buf` without an incomplete multi-byte sequence at its end. */
function completeEnd(buf: Buffer, start: number): number {
  for (let i = buf.length - 1; i >= start && i >= buf.length - 4; i--) {
    const b = buf[i]!;
    if (isContinuation(b)) continue;
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return buf.length - i >= need ? buf.length : i;
  }
  return buf.length;
}
