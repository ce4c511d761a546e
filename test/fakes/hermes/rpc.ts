/**
 * Raw NDJSON JSON-RPC peer (no SDK), behaving like Hermes' Python `acp` connection:
 * every request runs as its own task (so requests pipelined before the initialize
 * response are served), non-JSON lines are skipped, our own request ids start at 0.
 */
import { appendFileSync } from 'node:fs';
import type { Readable } from 'node:stream';

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export const internalError = (details: string): RpcError => new RpcError(-32603, 'Internal error', { details });

/** A handler's answer; `after` runs once the response frame is written. */
export interface Reply {
  result: unknown;
  after?: () => void | Promise<void>;
}

export type RequestHandler = (method: string, params: unknown) => Promise<Reply>;
export type NotificationHandler = (method: string, params: unknown) => void;

export interface PeerOptions {
  onRequest: RequestHandler;
  onNotification: NotificationHandler;
  onEnd: () => void;
  log: (line: string) => void;
  logPath: string | null;
}

type Msg = Record<string, unknown>;
export type RequestOutcome = { result: unknown } | { error: unknown } | { timeout: true };

export class Peer {
  private nextId = 0;
  private readonly pending = new Map<number, (o: RequestOutcome) => void>();
  private readonly t0 = Date.now();
  private buf = '';

  constructor(private readonly opts: PeerOptions) {}

  start(input: Readable): void {
    input.setEncoding('utf8');
    input.on('data', (chunk: string) => {
      this.buf += chunk;
      let nl: number;
      while ((nl = this.buf.indexOf('\n')) >= 0) {
        const line = this.buf.slice(0, nl).replace(/\r$/, '');
        this.buf = this.buf.slice(nl + 1);
        this.onLine(line);
      }
    });
    input.on('end', () => this.opts.onEnd());
  }

  private onLine(line: string): void {
    if (!line.trim()) return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.opts.log(`WARNING acp.connection: ignoring non-JSON input line (${line.length} bytes)`);
      return;
    }
    if (!msg || typeof msg !== 'object' || Array.isArray(msg)) return;
    const m = msg as Msg;
    // Logged before handling, so a test reading the log after a response sees the frame.
    if (this.opts.logPath) {
      appendFileSync(
        this.opts.logPath,
        JSON.stringify({ t_ms: Date.now() - this.t0, dir: 'client->agent', msg: m }) + '\n',
      );
    }
    const method = typeof m.method === 'string' ? m.method : null;
    if (method !== null && 'id' in m) void this.serve(m.id, method, m.params);
    else if (method !== null) this.opts.onNotification(method, m.params);
    else if ('id' in m) this.settle(m);
  }

  private async serve(id: unknown, method: string, params: unknown): Promise<void> {
    let reply: Reply | null = null;
    try {
      reply = await this.opts.onRequest(method, params);
      this.write({ jsonrpc: '2.0', id, result: reply.result ?? null });
    } catch (e) {
      const err = e instanceof RpcError ? e : internalError(e instanceof Error ? e.message : String(e));
      const error: Msg = { code: err.code, message: err.message };
      if (err.data !== undefined) error.data = err.data;
      this.write({ jsonrpc: '2.0', id, error });
      if (!(e instanceof RpcError)) this.opts.log(`ERROR acp.connection: unhandled error in ${method}: ${String(e)}`);
      return;
    }
    try {
      await reply.after?.();
    } catch (e) {
      this.opts.log(`ERROR acp.connection: background task failed: ${String(e)}`);
    }
  }

  private settle(m: Msg): void {
    const done = typeof m.id === 'number' ? this.pending.get(m.id) : undefined;
    if (!done) return;
    this.pending.delete(m.id as number);
    done('error' in m ? { error: m.error } : { result: m.result ?? null });
  }

  write(msg: Msg): void {
    process.stdout.write(JSON.stringify(msg) + '\n');
  }

  /** Plain non-JSON text on stdout, as Hermes really prints mid-turn. */
  writeRaw(line: string): void {
    process.stdout.write(line + '\n');
  }

  notify(method: string, params: unknown): void {
    this.write({ jsonrpc: '2.0', method, params });
  }

  /** Agent→client request; resolves `{timeout}` if unanswered in time (a late answer is ignored). */
  request(method: string, params: unknown, timeoutMs: number): Promise<RequestOutcome> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        resolve({ timeout: true });
      }, timeoutMs);
      this.pending.set(id, (o) => {
        clearTimeout(timer);
        resolve(o);
      });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }
}
