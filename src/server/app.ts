/**
 * The Hono app: guards on every path (Host, Origin), the token and role on /api (health
 * excepted), body limits, then the routes of the contract (ROUTES) with zod validation, then
 * the reserved mounts and the static web UI.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { HTTPException } from 'hono/http-exception';
import { secureHeaders } from 'hono/secure-headers';
import type { z } from 'zod';
import { TalariaError } from '../protocol/errors.js';
import type { Logger } from '../protocol/types.js';
import { AUTH_ROUTES, ROUTES, type AuthRouteName, type RouteDef, type RouteName } from './contract/index.js';
import { hostAllowed, identify, originAllowed, type GuardConfig } from './guard.js';
import { httpAnswerOf } from './error-status.js';
import { HttpError } from './http-error.js';
import type { TokenBound } from './token-bound.js';
import type { TokenIdentity, TokenRegistry } from './tokens.js';
import { staticHandler } from './static.js';

type Defs = typeof ROUTES & typeof AUTH_ROUTES;
type Name = RouteName | AuthRouteName;
/** What the route's schema gives after validation (zod's output), or `Else` for a route without one. */
type Valid<D, K extends 'params' | 'query' | 'body', Else> = D extends { readonly [P in K]: infer S }
  ? S extends z.ZodTypeAny
    ? z.output<S>
    : Else
  : Else;

/** A route's request, typed by its contract entry: the handler never casts what the validator checked. */
export interface RouteCtx<N extends Name = Name> {
  identity: TokenIdentity | undefined;
  params: Valid<Defs[N], 'params', Record<string, never>>;
  query: Valid<Defs[N], 'query', Record<string, never>>;
  body: Valid<Defs[N], 'body', undefined>;
  c: Context;
}
export type Handler<N extends Name = Name> = (ctx: RouteCtx<N>) => unknown;
/** Handlers for some routes, each typed by its own entry. */
export type HandlerMap<K extends Name = Name> = { [N in K]: Handler<N> };
export type Handlers = HandlerMap;

export interface AppConfig {
  guard: GuardConfig;
  tokens: TokenRegistry;
  /** Where a request's socket is tied to its token while its answer lasts (a revoke cuts it). */
  bound?: TokenBound;
  handlers: Handlers;
  logger: Logger;
  maxBodyBytes: number;
  /** dist/web (absolute); a placeholder page when it has no index.html. */
  webRoot: string;
  /** Path prefixes another face mounts (e.g. /acp, /captp): plain HTTP there gets 426. */
  reserved: readonly string[];
}

const ROLE_RANK = { none: 0, observer: 1, controller: 2 } as const;

function errorOut(c: Context, e: HttpError): Response {
  return c.json(e.body(), e.status as 400);
}

/**
 * Maps a library error onto an HTTP error through HTTP_ANSWER (every TalariaErrorCode has one);
 * the error's own `fix` (a StoreError's, say) wins over the table's. Anything else is a bug: 500.
 */
export function toHttpError(err: unknown, logger: Logger): HttpError {
  if (err instanceof HttpError) return err;
  if (err instanceof TalariaError) {
    const answer = httpAnswerOf(err.code);
    if (answer) {
      const own = (err as { fix?: unknown }).fix;
      const fix = typeof own === 'string' ? own : answer.fix;
      return new HttpError(answer.code, err.message, fix);
    }
  }
  logger.error('server: unexpected error', {
    error: err instanceof Error ? err.stack || err.message : String(err),
    ...(err instanceof TalariaError ? { code: err.code } : {}),
  });
  return new HttpError('internal', 'internal error (a bug: the server log has the details)');
}

/** Ties the request's socket to its token until the answer ends (streamed answers last a turn). */
function bindRequest(bound: TokenBound | undefined, c: Context, identity: TokenIdentity): void {
  const env = c.env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
  const socket = env?.incoming?.socket;
  if (!bound || !socket || !env.outgoing) return;
  const release = bound.bind(socket, identity);
  env.outgoing.once('close', release);
}

function parse(schema: z.ZodTypeAny | undefined, value: unknown, what: string): unknown {
  if (!schema) return value;
  const r = schema.safeParse(value);
  if (!r.success) {
    const issues = r.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
    const first = issues[0];
    throw new HttpError(
      'invalid_body',
      `invalid ${what}: ${first ? `${first.path ? `${first.path}: ` : ''}${first.message}` : 'bad input'}`,
      undefined,
      { issues },
    );
  }
  return r.data;
}

export function buildApp(cfg: AppConfig): Hono {
  const app = new Hono();
  // A throw anywhere (a guard, the static handler, a middleware) is answered and logged, never fatal.
  app.onError((err, c) =>
    err instanceof HTTPException ? err.getResponse() : errorOut(c, toHttpError(err, cfg.logger)),
  );

  // Host and Origin on every path: static files and health included.
  app.use('*', async (c, next) => {
    if (!hostAllowed(cfg.guard, c.req.header('host')))
      return errorOut(
        c,
        new HttpError(
          'bad_host',
          'this Host is not served here (DNS rebinding protection)',
          'Open the address the server printed.',
        ),
      );
    if (!originAllowed(cfg.guard, c.req.header('origin')))
      return errorOut(
        c,
        new HttpError('bad_origin', 'cross-site requests are refused', 'Use the web UI the server serves.'),
      );
    await next();
  });
  // nosniff, no referrer, no framing by other sites, same-origin isolation. No HSTS: a loopback
  // server speaks plain HTTP, and a LAN one's certificate is the user's choice to pin.
  app.use(
    '*',
    secureHeaders({ strictTransportSecurity: false, xFrameOptions: 'DENY', crossOriginResourcePolicy: 'same-origin' }),
  );

  app.use(
    '/api/*',
    bodyLimit({
      maxSize: cfg.maxBodyBytes,
      onError: (c) => errorOut(c, new HttpError('too_large', `request body over ${cfg.maxBodyBytes} bytes`)),
    }),
  );

  for (const [name, def] of Object.entries({ ...ROUTES, ...AUTH_ROUTES }) as [RouteName | AuthRouteName, RouteDef][]) {
    // A throw (HttpError, a library error, a bug) goes to onError above: one place answers every failure.
    app.on(def.method, def.path, async (c) => {
      let identity: TokenIdentity | undefined;
      if (def.role !== 'none') {
        identity = identify(
          { authorization: c.req.header('authorization'), cookie: c.req.header('cookie') },
          cfg.guard.cookie,
          (t) => cfg.tokens.verify(t),
        );
        if (!identity)
          throw new HttpError(
            'unauthorized',
            'a valid token is needed',
            'Open the link `talaria serve` printed (it carries the token), or send Authorization: Bearer <token>.',
          );
        if (ROLE_RANK[identity.role] < ROLE_RANK[def.role])
          throw new HttpError(
            'forbidden',
            `this token is an ${identity.role}: it can look, not act`,
            'Ask for a controller link.',
          );
        bindRequest(cfg.bound, c, identity);
      }
      const params = parse(def.params, c.req.param(), 'path');
      const query = parse(def.query, c.req.query(), 'query');
      let body: unknown;
      if (def.body) {
        let raw: unknown;
        const text = await c.req.text();
        try {
          raw = text.trim() === '' ? {} : JSON.parse(text);
        } catch {
          throw new HttpError('invalid_body', 'the body is not JSON');
        }
        body = parse(def.body, raw, 'body');
      }
      // The one place the route's name is erased: its schemas above produced exactly what its handler's type says.
      const handler = cfg.handlers[name] as (ctx: RouteCtx<Name>) => unknown;
      const out = await handler({
        identity,
        params: (params ?? {}) as never,
        query: (query ?? {}) as never,
        body: body as never,
        c,
      });
      if (out instanceof Response) return out;
      return c.json(out as object);
    });
  }

  app.all('/api/*', (c) => errorOut(c, new HttpError('not_found', `no route ${c.req.method} ${c.req.path}`)));
  for (const prefix of cfg.reserved) {
    app.all(`${prefix}`, (c) => c.json({ code: 'invalid_argument', message: `${prefix} speaks WebSocket only` }, 426));
    app.all(`${prefix}/*`, (c) =>
      c.json({ code: 'invalid_argument', message: `${prefix} speaks WebSocket only` }, 426),
    );
  }
  app.get('*', staticHandler(cfg.webRoot));
  return app;
}
