import { describe, it, expect } from 'vitest';
import {
  AUTH_ROUTES,
  ROUTE_TABLE,
  ROUTES,
  clientMessage,
  serverMessage,
  streamEvent,
  promptBody,
  ERROR_CODES,
  ERROR_STATUS,
} from '../../src/server/contract/index.js';
import { routePath, queryString } from '../../src/server/client/http.js';

describe('server contract', () => {
  it('every route has a unique method + path under /api', () => {
    const seen = new Set<string>();
    for (const r of Object.values(ROUTES)) {
      expect(r.path.startsWith('/api/')).toBe(true);
      const k = `${r.method} ${r.path}`;
      expect(seen.has(k)).toBe(false);
      seen.add(k);
    }
  });

  it('every error code has an HTTP status', () => {
    for (const c of ERROR_CODES) expect(ERROR_STATUS[c]).toBeGreaterThanOrEqual(400);
  });

  it('a prompt needs text or an image', () => {
    expect(promptBody.safeParse({ text: '  ' }).success).toBe(false);
    expect(promptBody.safeParse({ text: 'hi' }).success).toBe(true);
    expect(promptBody.safeParse({ images: [{ mimeType: 'image/png', data: 'AAAA' }] }).success).toBe(true);
    expect(promptBody.safeParse({ images: [{ mimeType: 'text/plain', data: 'AAAA' }] }).success).toBe(false);
  });

  it('stream events are the session events plus the server ones, each with an envelope', () => {
    const env = { sessionId: 's', seq: 1, at: 1 };
    expect(streamEvent.safeParse({ ...env, type: 'turn.queued', turnId: 't', position: 0 }).success).toBe(true);
    expect(
      streamEvent.safeParse({
        ...env,
        type: 'permission.resolved',
        requestKey: 'k',
        toolCallId: 'c',
        outcome: {},
        decidedBy: 'user',
        answeredBy: 'a',
      }).success,
    ).toBe(true);
    expect(streamEvent.safeParse({ ...env, type: 'turn.queued' }).success).toBe(false);
    expect(streamEvent.safeParse({ ...env, seq: 0, type: 'turn.queued', turnId: 't', position: 0 }).success).toBe(
      false,
    );
    expect(streamEvent.safeParse({ ...env, type: 'nope' }).success).toBe(false);
  });

  it('client and server messages parse', () => {
    expect(clientMessage.safeParse({ type: 'subscribe', sessionId: 's', since: 3 }).success).toBe(true);
    expect(clientMessage.safeParse({ type: 'subscribe', sessionId: 's', since: -1 }).success).toBe(false);
    expect(clientMessage.safeParse({ type: 'prompt' }).success).toBe(false);
    const closed = { sessionId: 's', seq: 2, at: 1, type: 'session.closed', reason: 'x' };
    expect(
      serverMessage.safeParse({ type: 'events', sessionId: 's', events: [closed, { ...closed, seq: 3 }] }).success,
    ).toBe(true);
    expect(
      serverMessage.safeParse({ type: 'events', sessionId: 's', events: [closed, { type: 'session.closed' }] }).success,
    ).toBe(false);
    expect(serverMessage.safeParse({ type: 'events', sessionId: 's', events: [] }).success).toBe(false);
    // One message per event is not the protocol any more.
    expect(serverMessage.safeParse({ type: 'event', event: closed }).success).toBe(false);
  });

  it('the client fills path parameters and queries', () => {
    expect(routePath(ROUTES.answerPermission.path, { id: 'a b', requestKey: 'k/1' })).toBe(
      '/api/sessions/a%20b/permissions/k%2F1',
    );
    expect(() => routePath(ROUTES.snapshot.path, {})).toThrow(/id/);
    expect(queryString({ a: 1, b: undefined, c: 'x y' })).toBe('?a=1&c=x+y');
    expect(queryString({})).toBe('');
  });

  it('the zod-free route table is every route, once, and marks exactly the text answers', () => {
    const all: Record<string, { method: string; path: string; role: string; response?: unknown }> = {
      ...ROUTES,
      ...AUTH_ROUTES,
    };
    expect(Object.keys(ROUTE_TABLE).sort()).toEqual(Object.keys(all).sort());
    for (const [name, loc] of Object.entries(ROUTE_TABLE) as [
      string,
      { method: string; path: string; role: string; text?: true },
    ][]) {
      const def = all[name]!;
      expect({ name, method: def.method, path: def.path, role: def.role }).toEqual({
        name,
        method: loc.method,
        path: loc.path,
        role: loc.role,
      });
      expect({ name, text: loc.text === true }).toEqual({ name, text: !('response' in def) });
    }
  });
});
