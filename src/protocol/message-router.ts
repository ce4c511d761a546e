/**
 * Routes the agent's raw messages before the SDK sees them (the transport's `divert`): each
 * `session/update` to its consumer, synchronously and in arrival order, never zod-parsed;
 * responses to ids we never sent are dropped here (the SDK would print them to stderr); the raw
 * params of agent→client requests we handle are kept by id until the handler reads them.
 */
import { errMessage } from './errors.js';
import type { JsonRpcId, Logger, RawMessage } from './types.js';

export class MessageRouter {
  // Ids of requests we sent and that have not been answered.
  private readonly outstanding = new Set<unknown>();
  private readonly rawParamsById = new Map<JsonRpcId, unknown>();

  constructor(
    /** Methods of agent→client requests a handler takes. */
    private readonly handled: ReadonlySet<string>,
    private readonly onSessionUpdate: (params: unknown, raw: RawMessage) => void,
    private readonly logger: Logger,
  ) {}

  /** The transport's divert hook: true when the message is consumed here. */
  readonly divert = (msg: RawMessage): boolean => {
    const method = msg.method;
    if (method === undefined) {
      if (this.outstanding.delete(msg.id)) return false;
      this.logger.warn('dropped a response to an unknown request', { id: msg.id });
      return true;
    }
    if (method === 'session/update' && msg.id === undefined) {
      try {
        this.onSessionUpdate(msg.params, msg);
      } catch (e) {
        this.logger.error('onSessionUpdate threw', { error: errMessage(e) });
      }
      return true;
    }
    if (msg.id !== undefined && this.handled.has(method)) this.rawParamsById.set(msg.id, msg.params);
    return false;
  };

  /** Each message the SDK writes: our requests' ids are noted, our answers end a raw-params entry. */
  outgoing(msg: RawMessage): void {
    if (msg.method !== undefined) {
      if (msg.id !== undefined) this.outstanding.add(msg.id);
    } else if (msg.id !== undefined && msg.id !== null) {
      this.rawParamsById.delete(msg.id);
    }
  }

  /** The params of request `id` exactly as the agent sent them (`parsed` if none were kept). */
  takeRawParams(id: JsonRpcId, parsed: unknown): unknown {
    if (!this.rawParamsById.has(id)) return parsed;
    const raw = this.rawParamsById.get(id);
    this.rawParamsById.delete(id);
    return raw;
  }

  /** The connection closed: nothing is awaited any more. */
  clear(): void {
    this.outstanding.clear();
    this.rawParamsById.clear();
  }
}
