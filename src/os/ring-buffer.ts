/** A bounded byte buffer that keeps the most recent output (agent stderr, terminal output). */
export class RingBuffer {
  private chunks: Buffer[] = [];
  private bytes = 0;
  private dropped = 0;

  constructor(readonly maxBytes: number = 64 * 1024) {}

  push(chunk: Buffer | string): void {
    let buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (buf.length >= this.maxBytes) {
      this.dropped += this.bytes + buf.length - this.maxBytes;
      buf = buf.subarray(buf.length - this.maxBytes);
      this.chunks = [buf];
      this.bytes = buf.length;
      return;
    }
    this.chunks.push(buf);
    this.bytes += buf.length;
    while (this.bytes > this.maxBytes) {
      const first = this.chunks[0]!;
      const excess = this.bytes - this.maxBytes;
      if (first.length <= excess) {
        this.chunks.shift();
        this.bytes -= first.length;
        this.dropped += first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.bytes -= excess;
        this.dropped += excess;
      }
    }
  }

  /** Bytes discarded so far because the buffer was full. */
  get droppedBytes(): number {
    return this.dropped;
  }

  get length(): number {
    return this.bytes;
  }

  text(): string {
    // A cut may split a UTF-8 sequence at the start; the decoder replaces it, which is fine for logs.
    return Buffer.concat(this.chunks, this.bytes).toString('utf8');
  }

  /** The last `maxChars` characters, for error messages. */
  tail(maxChars = 2000): string {
    const t = this.text();
    return t.length > maxChars ? t.slice(t.length - maxChars) : t;
  }
}
