import { describe, it, expect } from 'vitest';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWireChecker, formatViolation, warmWireChecker, type Violation } from '../../src/protocol/wire-check.js';
import type { Direction, Frame, RawMessage } from '../../src/protocol/types.js';

const FIXTURES = fileURLToPath(new URL('../fixtures/hermes-0.18.2/', import.meta.url));
const fixture = (name: string): Frame[] =>
  readFileSync(join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Frame);

const C2A: Direction = 'client->agent';
const A2C: Direction = 'agent->client';
const f = (dir: Direction, msg: RawMessage) => ({ dir, msg: { jsonrpc: '2.0', ...msg } });
const brief = (vs: Violation[]) =>
  vs.map((v) => ({ index: v.index, dir: v.dir, method: v.method, kind: v.kind, path: v.path }));

describe('wire checker over the recorded Hermes 0.18.2 traffic', () => {
  it('finds no schema violation (unstable schema), only the legacy methods, and pairs every response', () => {
    const seen: Record<string, unknown> = {};
    for (const name of readdirSync(FIXTURES)
      .filter((n) => n.endsWith('.ndjson'))
      .sort()) {
      const c = createWireChecker();
      const violations = c.checkAll(fixture(name));
      const { compileMs: _ms, ...stats } = c.stats;
      seen[name] = { violations: violations.map(formatViolation), unknown: c.unknownMethods, stats };
    }
    expect(seen).toEqual({
      'main.ndjson': {
        violations: [],
        unknown: [
          { index: 43, dir: C2A, method: 'session/set_model', kind: 'request', reason: 'not_in_schema' },
          { index: 66, dir: C2A, method: 'ping', kind: 'request', reason: 'not_in_schema' },
        ],
        stats: {
          frames: 76,
          requests: 20,
          notifications: 36,
          responses: 20,
          errors: 2,
          violations: 0,
          unknownMethods: 2,
          unanswered: 0,
        },
      },
      'noauth.ndjson': {
        violations: [],
        unknown: [],
        stats: {
          frames: 4,
          requests: 2,
          notifications: 0,
          responses: 2,
          errors: 1,
          violations: 0,
          unknownMethods: 0,
          unanswered: 0,
        },
      },
      'profile.ndjson': {
        violations: [],
        unknown: [],
        stats: {
          frames: 19,
          requests: 3,
          notifications: 13,
          responses: 3,
          errors: 0,
          violations: 0,
          unknownMethods: 0,
          unanswered: 0,
        },
      },
      'reload.ndjson': {
        violations: [],
        unknown: [],
        stats: {
          frames: 31,
          requests: 5,
          notifications: 21,
          responses: 5,
          errors: 0,
          violations: 0,
          unknownMethods: 0,
          unanswered: 0,
        },
      },
      'tools.ndjson': {
        violations: [],
        unknown: [],
        stats: {
          frames: 63,
          requests: 10,
          notifications: 43,
          responses: 10,
          errors: 0,
          violations: 0,
          unknownMethods: 0,
          unanswered: 0,
        },
      },
    });
  });

  it('against the stable schema the only violation is the unstable session/fork', () => {
    const all = readdirSync(FIXTURES)
      .filter((n) => n.endsWith('.ndjson'))
      .sort()
      .flatMap((n) =>
        createWireChecker({ unstable: false })
          .checkAll(fixture(n))
          .map((v) => `${n} ${formatViolation({ ...v, msg: undefined })}`),
      );
    expect(all).toEqual([
      'reload.ndjson #26 client->agent session/fork request /method: "session/fork" is unstable (not in the stable schema)',
    ]);
  });

  it('catches one broken field in a real recording, at its frame', () => {
    const frames = fixture('main.ndjson');
    const i = frames.findIndex(
      (x) => (x.msg.params as { update?: { sessionUpdate?: string } })?.update?.sessionUpdate === 'tool_call',
    );
    const broken = structuredClone(frames);
    delete (broken[i]!.msg.params as { update: { title?: string } }).update.title;
    const v = createWireChecker().checkAll(broken);
    expect(brief(v)).toEqual([
      { index: i, dir: A2C, method: 'session/update', kind: 'notification', path: '/params/update' },
    ]);
    expect(v[0]!.message).toBe("must have required property 'title'");
  });
});

describe('wire checker rules', () => {
  it('validates params per method and side, and results against the request they answer', () => {
    const c = createWireChecker();
    const v = c.checkAll([
      f(C2A, { id: 0, method: 'initialize', params: { protocolVersion: 'one' } }),
      f(A2C, { id: 0, result: { protocolVersion: 1, agentCapabilities: { loadSession: 'yes' } } }),
      f(C2A, {
        id: 'c3f1e8a2-uuid',
        method: 'session/prompt',
        params: { sessionId: 's', prompt: [{ type: 'text', text: 'hi' }] },
      }),
      f(A2C, {
        method: 'session/update',
        params: { sessionId: 's', update: { sessionUpdate: 'tool_call_update', toolCallId: 't', kind: 'weird' } },
      }),
      f(A2C, { method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'future_kind' } } }),
      f(A2C, {
        method: 'session/update',
        params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'txt' } } },
      }),
      f(A2C, { id: 'c3f1e8a2-uuid', result: { stopReason: 'finished' } }),
    ]);
    expect(v.map((x) => `${x.index} ${x.kind} ${x.method} ${x.path}: ${x.message}`)).toEqual([
      '0 request initialize /params/protocolVersion: must be integer (got "one")',
      '1 response initialize /result/agentCapabilities/loadSession: must be boolean (got "yes")',
      '3 notification session/update /params/update/kind: must be one of ["read","edit","delete","move","search","execute","think","fetch","switch_mode","other"]; or must be null (got "weird")',
      '4 notification session/update /params/update: value of tag "sessionUpdate" must be in oneOf (got "future_kind")',
      '5 notification session/update /params/update/content: value of tag "type" must be in oneOf (got "txt")',
      '6 response session/prompt /result/stopReason: must be one of ["end_turn","max_tokens","max_turn_requests","refusal","cancelled"] (got "finished")',
    ]);
    expect(c.stats).toMatchObject({
      frames: 7,
      requests: 2,
      notifications: 3,
      responses: 2,
      violations: 6,
      unanswered: 0,
    });
  });

  it('tracks ids per direction: the same id both ways, "1" vs 1, agent->client requests answered by the client', () => {
    const c = createWireChecker();
    const perm = {
      sessionId: 's',
      toolCall: { toolCallId: 't', title: 'write' },
      options: [{ optionId: 'y', name: 'Yes', kind: 'allow_once' }],
    };
    const v = c.checkAll([
      f(C2A, { id: 1, method: 'session/prompt', params: { sessionId: 's', prompt: [] } }),
      f(A2C, { id: 1, method: 'session/request_permission', params: perm }),
      f(A2C, { id: '1', method: 'fs/read_text_file', params: { sessionId: 's', path: '/a' } }),
      f(C2A, { id: 1, result: { outcome: { outcome: 'picked' } } }), // answers the permission request
      f(C2A, { id: '1', result: { content: 'x' } }),
      f(A2C, { id: 1, result: { stopReason: 'end_turn' } }),
    ]);
    expect(v.map((x) => `${x.index} ${x.dir} ${x.method} ${x.kind} ${x.path}`)).toEqual([
      '3 client->agent session/request_permission response /result/outcome',
    ]);
    expect(v[0]!.message).toContain('"outcome"');
    expect(c.stats.unanswered).toBe(0);
  });

  it('checks the JSON-RPC envelope and error responses', () => {
    const c = createWireChecker();
    const v = c.checkAll([
      { dir: C2A, msg: { jsonrpc: '1.0', id: 1.5, method: 'session/list', params: {} } },
      f(A2C, { id: 7, result: {} }), // answers nothing (1.5 is not a valid id but is still tracked as sent)
      f(C2A, { id: 2, method: 'session/list', params: {} }),
      f(A2C, { id: 2, result: { sessions: [] }, error: { code: 1, message: 'x' } }),
      f(C2A, { id: 3, method: 'session/list', params: {} }),
      f(A2C, { id: 3, error: { code: 'bad', message: 'm' } as unknown as RawMessage['error'] }),
      f(C2A, { id: 4, method: 'session/list', params: {} }),
      f(A2C, { id: 4 }),
      f(A2C, { result: {} }),
      f(A2C, { id: null, error: { code: -32700, message: 'Parse error' } }), // unreadable request: fine
      f(C2A, { id: 5, method: 'session/list', params: {} }),
      f(C2A, { id: 5, method: 'session/list', params: {} }),
      f(C2A, { method: 'session/cancel' }),
      f(C2A, { id: 6, method: 'session/cancel', params: { sessionId: 's' } }),
      f(A2C, { id: 9, method: 'session/prompt', params: {} }),
      { dir: A2C, msg: [] as unknown as RawMessage },
    ]);
    expect(v.map((x) => `${x.index} ${x.kind} ${x.path}: ${x.message}`)).toEqual([
      '0 request /jsonrpc: must be "2.0" (got "1.0")',
      '0 request /id: must be a string, an integer or null (got 1.5)',
      '1 response /id: answers no pending request sent client->agent (id 7)',
      '3 error : a response must carry exactly one of "result" and "error"',
      '5 error /error/code: must be one of [-32700,-32600,-32601,-32602,-32603,-32800,-32000,-32002]; or must be integer (got "bad")',
      '7 response : a response must carry "result" or "error"',
      '8 response : a response must carry an "id" (or a "method" if it is a notification)',
      '11 request /id: id 5 reused while that request is still pending',
      '12 notification /params: must be object (got nothing)',
      '13 request /method: "session/cancel" is defined only as notification to the agent; not a request to the agent',
      '14 request /method: "session/prompt" is defined only as response to the agent, request to the agent; not a request to the client',
      '15 notification : frame is not a JSON object (batches are not allowed)',
    ]);
  });

  it('lists extension and legacy methods without failing them; allowExtensions: false fails extensions', () => {
    const frames = [
      f(C2A, { id: 1, method: '_hermes/reload', params: { a: 1 } }),
      f(A2C, { id: 1, result: null }),
      f(A2C, { method: '_x/notice', params: {} }),
      f(C2A, { id: 2, method: 'session/set_model', params: { sessionId: 's', modelId: 'm' } }),
      f(A2C, { id: 2, result: {} }),
    ];
    const c = createWireChecker();
    expect(c.checkAll(frames)).toEqual([]);
    expect(c.unknownMethods.map((u) => `${u.index} ${u.method} ${u.kind} ${u.reason}`)).toEqual([
      '0 _hermes/reload request extension',
      '2 _x/notice notification extension',
      '3 session/set_model request not_in_schema',
    ]);
    const strict = createWireChecker({ allowExtensions: false });
    expect(strict.checkAll(frames).map((x) => `${x.index} ${x.message}`)).toEqual([
      '0 extension method "_hermes/reload" not allowed',
      '2 extension method "_x/notice" not allowed',
    ]);
    expect(strict.unknownMethods.map((u) => u.method)).toEqual(['session/set_model']);
  });

  it('unstable: true accepts unstable methods and update kinds; the stable schema rejects them', () => {
    const frames = [
      f(C2A, { id: 1, method: 'session/fork', params: { sessionId: 's', cwd: '/w', mcpServers: [] } }),
      f(A2C, { id: 1, result: { sessionId: 's2' } }),
      f(A2C, {
        method: 'session/update',
        params: { sessionId: 's', update: { sessionUpdate: 'plan_removed', planId: 'p' } },
      }),
    ];
    expect(createWireChecker().checkAll(frames)).toEqual([]);
    expect(
      createWireChecker({ unstable: false })
        .checkAll(frames)
        .map((x) => `${x.index} ${x.path}: ${x.message}`),
    ).toEqual([
      '0 /method: "session/fork" is unstable (not in the stable schema)',
      '2 /params/update: value of tag "sessionUpdate" must be in oneOf (got "plan_removed")',
    ]);
  });

  it('compiles each schema flavor once per process', () => {
    const ms = warmWireChecker(true);
    expect(ms).toBeGreaterThan(0);
    expect(warmWireChecker(true)).toBe(ms);
    const c = createWireChecker();
    c.check(f(C2A, { method: 'session/cancel', params: { sessionId: 's' } }));
    expect(c.stats.compileMs).toBe(ms);
  });
});
