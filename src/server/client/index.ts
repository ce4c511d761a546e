/**
 * The typed client of `talaria serve` (browser-safe: global fetch and a WebSocket constructor).
 * Schemas are types only here: at run time it needs wire.ts alone, never zod.
 *
 *   const c = connectServer('http://127.0.0.1:4000', token, { WebSocket: WS }); // Node: pass `ws`
 *   const { sessions } = await c.api.listSessions({});
 *   const live = c.socket();
 *   live.subscribe(id, { onSnapshot, onEvent });
 */
import type { RouteInput, RouteName, RouteOutput } from '../contract/index.js';
import { PATHS, ROUTE_TABLE } from '../contract/wire.js';
import { callRoute, type FetchLike } from './http.js';
import { LiveSocket, type LiveSocketOptions, type WebSocketCtor } from './socket.js';

export { ServerError, type FetchLike, type ResponseLike } from './http.js';
export { applyEvent } from './thread.js';
export {
  LiveSocket,
  type LiveSocketOptions,
  type SubscribeHandlers,
  type Subscription,
  type WebSocketCtor,
  type WebSocketLike,
} from './socket.js';

export interface ConnectOptions {
  /** Default: globalThis.WebSocket (Node tests pass the `ws` package's WebSocket). */
  WebSocket?: WebSocketCtor;
  /** Default: globalThis.fetch. */
  fetch?: FetchLike;
}

type Api = {
  [N in RouteName]: Record<string, never> extends RouteInput<N>
    ? (input?: RouteInput<N>) => Promise<RouteOutput<N>>
    : (input: RouteInput<N>) => Promise<RouteOutput<N>>;
};

export interface ServerClient {
  /** The server's origin, e.g. http://127.0.0.1:4000. */
  readonly url: string;
  /** One method per route of the contract (ROUTES), typed by its schemas. */
  readonly api: Api;
  call<N extends RouteName>(name: N, input?: RouteInput<N>): Promise<RouteOutput<N>>;
  /** Opens `/ws` (one socket per call). */
  socket(o?: LiveSocketOptions): LiveSocket;
}

/**
 * `url` may carry the token in its fragment (`…/#token=…`, what `talaria serve` prints);
 * `token` may then be omitted. In a browser page served by the server, pass no token: the
 * cookie set from the fragment authenticates fetch and the WebSocket.
 */
export function connectServer(url: string, token?: string, opts: ConnectOptions = {}): ServerClient {
  const u = new URL(url);
  const fromHash = new URLSearchParams(u.hash.replace(/^#/, '')).get('token') ?? undefined;
  const tok = token ?? fromHash;
  const origin = u.origin;
  const fetchFn: FetchLike = opts.fetch ?? ((i, init) => globalThis.fetch(i, init));
  const call = <N extends RouteName>(name: N, input?: RouteInput<N>) => callRoute(origin, tok, fetchFn, name, input);
  const api = {} as Record<string, (input?: unknown) => Promise<unknown>>;
  for (const name of Object.keys(ROUTE_TABLE) as RouteName[])
    api[name] = (input) => call(name, input as RouteInput<typeof name>);
  return {
    url: origin,
    api: api as unknown as Api,
    call,
    socket(o) {
      const Ctor = opts.WebSocket ?? (globalThis as { WebSocket?: WebSocketCtor }).WebSocket;
      if (!Ctor) throw new TypeError('no WebSocket constructor: pass { WebSocket } (in Node: the ws package)');
      const wsUrl = origin.replace(/^http/, 'ws') + PATHS.ws;
      return new LiveSocket(wsUrl, tok, Ctor, o);
    },
  };
}
