/**
 * The editor side of `talaria acp`: raw JSON-RPC (no SDK router, so unknown methods, update kinds
 * and `_meta` travel verbatim). Talaria owns the ids it sends the editor; an answer is matched by
 * them, never by the agent's ids (each hop terminates JSON-RPC).
 */
import { RequestError } from '../../protocol/wire-error.js';

export type JsonRpcId = string | number;
export interface RpcMessage {
  jsonrpc?: '2.0';
  id?: JsonRpcId | null;
  method?: string;
  params?: unknown;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

export class EditorPeer {
  private next = 1;
  private readonly pending = new Map<JsonRpcId, Pending>();
  closed = false;

  /**
   * `writeLine`, when the editor's side is a byte stream: a message already serialized (one line,
   * no newline), so an agent frame forwarded unchanged is not serialized again.
   */
  constructor(
    private readonly write: (msg: RpcMessage) => void,
    private readonly writeLine?: (line: string) => void,
  ) {}

  /** Whether `line()` writes bytes (else callers send messages). */
  get takesLines(): boolean {
    return this.writeLine !== undefined;
  }

  /** One JSON-RPC message as its line (only when `takesLines`). */
  line(text: string): void {
    if (!this.closed) this.writeLine?.(text);
  }

  /** A request to the editor; `signal` aborts it with `$/cancel_request` (and rejects). */
  request(method: string, params: unknown, signal?: AbortSignal): Promise<unknown> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      if (this.closed) return reject(new RequestError(-32603, 'the editor connection is closed'));
      this.pending.set(id, { resolve, reject });
      signal?.addEventListener(
        'abort',
        () => {
          if (!this.pending.delete(id)) return;
          this.notify('$/cancel_request', { requestId: id });
          reject(new RequestError(-32800, 'request cancelled'));
        },
        { once: true },
      );
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  notify(method: string, params: unknown): void {
    if (!this.closed) this.write({ jsonrpc: '2.0', method, params });
  }

  respond(id: JsonRpcId | null, result: unknown): void {
    if (!this.closed) this.write({ jsonrpc: '2.0', id, result: result ?? null });
  }

  fail(id: JsonRpcId | null, code: number, message: string, data?: unknown): void {
    if (!this.closed)
      this.write({ jsonrpc: '2.0', id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
  }

  /** An answer from the editor to one of our requests; false when it answers nothing we asked. */
  answer(msg: RpcMessage): boolean {
    const p = msg.id === undefined || msg.id === null ? undefined : this.pending.get(msg.id);
    if (!p) return false;
    this.pending.delete(msg.id!);
    if (msg.error) p.reject(new RequestError(msg.error.code, msg.error.message, msg.error.data));
    else p.resolve(msg.result);
    return true;
  }

  /** The editor went away: every request we still wait on fails. */
  close(): void {
    this.closed = true;
    for (const p of this.pending.values()) p.reject(new RequestError(-32603, 'the editor connection is closed'));
    this.pending.clear();
  }
}
