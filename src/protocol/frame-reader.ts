/**
 * The inbound framer: bytes → lines → one JSON.parse and a shape check per line → the raw tap
 * (`onFrame`) and the InboundQueue. Bad lines are reported and skipped; only a flood of them (no
 * valid frame for `garbage.maxLines` lines or `garbage.maxBytes` bytes, see GarbageMeter) is
 * fatal, reported through `onFlood`.
 */
import {
  GarbageMeter,
  LineDecoder,
  mayBeJson,
  DEFAULT_MAX_GARBAGE_BYTES,
  type GarbageLimits,
  type OversizeLine,
} from './ndjson.js';
import { errMessage } from './errors.js';
import { checkMessage, MALFORMED_RESPONSE } from './jsonrpc-shape.js';
import type { InboundQueue } from './inbound-queue.js';
import type { TransportHooks, TransportStats } from './transport-types.js';
import type { Logger, ProtocolErrorEvent, RawMessage } from './types.js';

const PREVIEW_CHARS = 200;

export interface FrameReaderOptions {
  hooks: TransportHooks;
  stats: TransportStats;
  inbox: InboundQueue;
  logger: Logger;
  /** Milliseconds since the transport started (a frame's t_ms). */
  clock: () => number;
  now: () => number;
  maxLineBytes: number | undefined;
  garbage: GarbageLimits | undefined;
  /** The input is a flood of non-frames (`why` says which limit); called once. */
  onFlood: (why: string) => void;
}

export class FrameReader {
  private readonly hooks: TransportHooks;
  private readonly stats: TransportStats;
  private readonly inbox: InboundQueue;
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly onFlood: (why: string) => void;
  private readonly decoder: LineDecoder;
  private readonly garbage: GarbageMeter;
  private stopped = false;
  // t_ms of the frames of the current read: every line of one chunk arrived at the same moment,
  // so the clock is read once per chunk rather than once per frame.
  private readMs = 0;

  constructor(o: FrameReaderOptions) {
    this.hooks = o.hooks;
    this.stats = o.stats;
    this.inbox = o.inbox;
    this.logger = o.logger;
    this.clock = o.clock;
    this.onFlood = o.onFlood;
    this.decoder = new LineDecoder({
      maxLineBytes: o.maxLineBytes,
      onLine: (line) => this.line(line),
      onOversize: (info: OversizeLine) => {
        this.report(
          'too_large',
          info.preview,
          info.bytes,
          `line of ${info.bytes} bytes exceeds the ${this.decoder.maxLineBytes}-byte limit`,
        );
        this.checkGarbage();
      },
    });
    // One legitimate frame near the line limit must never look like a flood.
    this.garbage = new GarbageMeter(
      {
        ...o.garbage,
        maxBytes: Math.max(o.garbage?.maxBytes ?? DEFAULT_MAX_GARBAGE_BYTES, 2 * this.decoder.maxLineBytes),
      },
      o.now,
    );
  }

  /** One chunk of input, every complete line in it handled before this returns. */
  read(buf: Buffer): void {
    this.readMs = this.clock();
    this.stats.bytesIn += buf.length;
    this.garbage.read(buf.length);
    this.decoder.push(buf);
    this.readEnded();
    this.checkGarbage();
  }

  /** End of input: the last line, unterminated, still counts. */
  end(): void {
    this.readMs = this.clock();
    this.decoder.end();
    this.readEnded();
  }

  /** The transport finished: lines still in the current chunk are ignored. */
  stop(): void {
    this.stopped = true;
  }

  private line(line: string): void {
    if (this.stopped) return;
    let msg: unknown;
    if (!mayBeJson(line)) {
      // Certainly not JSON: no JSON.parse (its exception is what made a flood slow).
      if (line.trim() !== '') this.report('non_json', line, Buffer.byteLength(line));
      else this.garbage.badLine();
      this.checkGarbage();
      return;
    }
    try {
      msg = JSON.parse(line);
    } catch {
      this.report('non_json', line, Buffer.byteLength(line));
      this.checkGarbage();
      return;
    }
    const problem = checkMessage(msg);
    if (problem !== undefined) {
      this.report('invalid_jsonrpc', line, Buffer.byteLength(line), problem);
      // A malformed response still names a request we wait on: let the SDK fail it (-32600)
      // rather than leave it hanging.
      if (problem === MALFORMED_RESPONSE) this.deliver(msg as RawMessage);
      this.checkGarbage();
      return;
    }
    this.stats.framesIn++;
    this.garbage.frame();
    // A throwing tap must not cost the session its frame (an initialize answer would hang).
    const onFrame = this.hooks.onFrame;
    if (onFrame !== undefined) {
      try {
        onFrame({ dir: 'agent->client', t_ms: this.readMs, msg: msg as RawMessage, raw: line });
      } catch (e) {
        this.logger.error('onFrame threw', { error: errMessage(e) });
      }
    }
    this.deliver(msg as RawMessage);
  }

  private deliver(msg: RawMessage): void {
    try {
      this.inbox.deliver(msg);
    } catch (e) {
      this.logger.error('transport hook threw', { error: errMessage(e) });
    }
  }

  private report(kind: ProtocolErrorEvent['kind'], line: string, bytes: number, detail?: string): void {
    this.stats.protocolErrors++;
    this.garbage.badLine();
    const onProtocolError = this.hooks.onProtocolError;
    if (!onProtocolError) return;
    const event: ProtocolErrorEvent = {
      kind,
      preview: line.length > PREVIEW_CHARS ? line.slice(0, PREVIEW_CHARS) : line,
      bytes,
    };
    if (detail !== undefined) event.detail = detail;
    try {
      onProtocolError(event);
    } catch (e) {
      this.logger.error('onProtocolError threw', { error: errMessage(e) });
    }
  }

  private readEnded(): void {
    const onReadEnd = this.hooks.onReadEnd;
    if (onReadEnd === undefined) return;
    try {
      onReadEnd();
    } catch (e) {
      this.logger.error('onReadEnd threw', { error: errMessage(e) });
    }
  }

  /** A flood of non-frames: the agent is not speaking ACP. */
  private checkGarbage(): void {
    if (this.stopped) return;
    const why = this.garbage.exceeded();
    if (why === undefined) return;
    this.decoder.stop();
    this.onFlood(why);
  }
}
