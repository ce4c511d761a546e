/** The transport's public shapes, apart from its implementation so its parts can share them. */
import type { Readable, Writable } from 'node:stream';
import type { CloseCause } from './errors.js';
import type { GarbageLimits } from './ndjson.js';
import type { FlowGate } from './flow-gate.js';
import type { Frame, Logger, ProtocolErrorEvent, RawMessage } from './types.js';

export interface TransportHooks {
  /** Raw tap: every valid inbound and outbound frame, in wire order. */
  onFrame?: (frame: Frame) => void;
  onProtocolError?: (event: ProtocolErrorEvent) => void;
  /** Return true to consume an inbound message (it then never reaches the SDK). */
  divert?: (msg: RawMessage) => boolean;
  /** After the lines of one read were handled (consumers that batch per read flush here). */
  onReadEnd?: () => void;
}

export interface TransportOptions extends TransportHooks {
  input: Readable;
  output: Writable;
  maxLineBytes?: number;
  /** Clock in ms (default performance.now). */
  now?: () => number;
  /** Messages queued for the SDK before input is paused (backpressure). Default 1024. */
  highWaterMark?: number;
  /** Where exceptions thrown by hooks go (they never reach the stream). */
  logger?: Logger;
  /** When a run of bad lines counts as a flood that closes the connection (see GarbageMeter). */
  garbage?: GarbageLimits;
  /** While held, input stops at the next chunk (the consumer downstream is full). */
  gate?: FlowGate;
}

export interface TransportCloseInfo {
  cause: Exclude<CloseCause, 'exit'>;
  error?: Error;
}

export interface TransportStats {
  bytesIn: number;
  bytesOut: number;
  framesIn: number;
  framesOut: number;
  diverted: number;
  protocolErrors: number;
}

export interface Transport {
  /** For the SDK's `connect()`: message objects, not bytes. */
  readonly stream: { readable: ReadableStream<RawMessage>; writable: WritableStream<RawMessage> };
  /** Write one message as one line; resolves once the output accepted it (drain respected). */
  send(msg: RawMessage): Promise<void>;
  readonly closed: Promise<TransportCloseInfo>;
  readonly isClosed: boolean;
  /** Stop reading, end the output. Idempotent. */
  close(): void;
  /** Install or replace hooks after creation (connectAgent installs its divert this way). */
  setHooks(hooks: TransportHooks): void;
  readonly stats: TransportStats;
}
