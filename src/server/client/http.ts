import type { RouteInput, RouteName, RouteOutput } from '../contract/index.js';
// The zod-free part only: the client loads no schema at run time (see wire.ts).
import { ROUTE_TABLE, TOKEN_HEADER } from '../contract/wire.js';

/** An error the server answered with (`{code, message, fix?}` plus the HTTP status). */
export class ServerError extends Error {
  readonly code: string;
  readonly status: number;
  readonly fix: string | undefined;
  readonly data: unknown;
  constructor(status: number, body: { code: string; message: string; fix?: string; data?: unknown }) {
    super(body.message);
    this.name = 'ServerError';
    this.code = body.code;
    this.status = status;
    this.fix = body.fix;
    this.data = body.data;
  }
}

/** The ServerError of an error answer: its JSON `{code, message, fix?}`, or its text as the message. */
export function errorAnswer(status: number, statusText: string, contentType: string, text: string): ServerError {
  let body: { code?: string; message?: string; fix?: string } = { message: text };
  try {
    if (contentType.includes('json')) body = JSON.parse(text) as typeof body;
  } catch {
    // not the JSON it says it is: its text is the message
  }
  return new ServerError(status, {
    code: body.code ?? 'internal',
    message: body.message ?? statusText,
    ...(body.fix ? { fix: body.fix } : {}),
  });
}

/** The part of a fetch Response the client reads (a Node client may answer with node:http instead of undici). */
export interface ResponseLike {
  readonly ok: boolean;
  readonly status: number;
  readonly statusText: string;
  readonly headers: { get(name: string): string | null };
  json(): Promise<unknown>;
  text(): Promise<string>;
}
export type FetchLike = (input: string, init?: RequestInit) => Promise<ResponseLike>;

/** Fills `:params` in a route path (encoded). */
export function routePath(path: string, params: Record<string, string> | undefined): string {
  return path.replace(/:([A-Za-z]+)/g, (_, k: string) => {
    const v = params?.[k];
    if (v === undefined) throw new TypeError(`missing path parameter ${k}`);
    return encodeURIComponent(v);
  });
}

export function queryString(query: Record<string, unknown> | undefined): string {
  if (!query) return '';
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Calls one route; JSON routes resolve to the parsed body, text routes to the text. */
export async function callRoute<N extends RouteName>(
  base: string,
  token: string | undefined,
  fetchFn: FetchLike,
  name: N,
  input: RouteInput<N> | undefined,
): Promise<RouteOutput<N>> {
  const def: { method: string; path: string; text?: true } = ROUTE_TABLE[name];
  const i = (input ?? {}) as { params?: Record<string, string>; query?: Record<string, unknown>; body?: unknown };
  const url = base + routePath(def.path, i.params) + queryString(i.query);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers[TOKEN_HEADER] = `Bearer ${token}`;
  const init: RequestInit = { method: def.method, headers, credentials: 'same-origin' };
  // The server reads a body only where the route has one; POST/PUT/PATCH always send JSON.
  if (def.method === 'POST' || def.method === 'PUT' || def.method === 'PATCH') {
    headers['content-type'] = 'application/json';
    init.body = JSON.stringify(i.body ?? {});
  }
  const res = await fetchFn(url, init);
  const type = res.headers.get('content-type') ?? '';
  if (!res.ok) throw errorAnswer(res.status, res.statusText, type, await res.text());
  if (def.text) return (await res.text()) as RouteOutput<N>;
  return (await res.json()) as RouteOutput<N>;
}
