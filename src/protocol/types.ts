/** Shared protocol-level types. Loose JSON on purpose: agents send what they send. */

export type JsonRpcId = string | number | null;

/** Any JSON-RPC 2.0 message as it came off (or goes onto) the wire. */
export interface RawMessage {
  jsonrpc?: unknown;
  id?: JsonRpcId;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
  [k: string]: unknown;
}

export type Direction = 'client->agent' | 'agent->client';

/**
 * One tapped frame, in wire order. `t_ms` is ms since the transport opened. `raw` is the line
 * exactly as it crossed the pipe (received, or as we wrote it), without its newline: the store
 * and wire logs keep these bytes instead of serialising `msg` again.
 */
export interface Frame {
  dir: Direction;
  t_ms: number;
  msg: RawMessage;
  raw: string;
}

/** The fixture / wire-log line format: {"t_ms","dir","msg"}. */
export interface WireLogLine {
  t_ms: number;
  dir: Direction;
  msg: RawMessage;
}

/** Protocol problems that do not kill the connection. */
export interface ProtocolErrorEvent {
  kind: 'non_json' | 'too_large' | 'invalid_jsonrpc';
  /** The offending line, truncated to a few hundred chars for display. */
  preview: string;
  bytes: number;
  detail?: string;
}

/** Injected logger: library code never writes to stdout/stderr. */
export interface Logger {
  debug(msg: string, data?: Record<string, unknown>): void;
  info(msg: string, data?: Record<string, unknown>): void;
  warn(msg: string, data?: Record<string, unknown>): void;
  error(msg: string, data?: Record<string, unknown>): void;
}

export const silentLogger: Logger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
