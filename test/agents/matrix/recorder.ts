/** Keeps every frame of one agent process in wire order, and writes them as wire-log lines. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { formatWireLine } from '../../../src/protocol/wire-log.js';
import type { Frame } from '../../../src/protocol/types.js';

export class Recorder {
  readonly frames: Frame[] = [];
  /** Wall-clock time of the last frame from the agent (the stall watchdog reads it). */
  lastAgentFrameAt = Date.now();
  private listeners = new Set<(f: Frame) => void>();

  readonly onFrame = (f: Frame): void => {
    this.frames.push(f);
    if (f.dir === 'agent->client') this.lastAgentFrameAt = Date.now();
    for (const l of this.listeners) l(f);
  };

  /** Index to slice from (frames of one scenario = frames.slice(mark)). */
  mark(): number {
    return this.frames.length;
  }

  listen(fn: (f: Frame) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  write(path: string, from = 0, to = this.frames.length): void {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, this.frames.slice(from, to).map(formatWireLine).join('\n') + '\n');
  }
}
