import { describe, expect, it } from 'vitest';
import { RequestError } from '../../../src/protocol/wire-error.js';
import {
  classifyHermesTurn,
  hermesHooks,
  hermesSetupError,
  hermesStrayResumeId,
  linkHermesPermission,
} from '../../../src/providers/hermes/hooks.js';
import type { ToolCallEntry } from '../../../src/thread/types.js';

const turn = (text: string, cancelled = false) => ({ turnId: 't', stopReason: 'end_turn', text, cancelled });

function call(id: string, title: string, o: Partial<ToolCallEntry> = {}): ToolCallEntry {
  return {
    id: `e-${id}`,
    kind: 'tool_call',
    toolCallId: id,
    title,
    status: 'pending',
    content: [],
    locations: [],
    ...o,
  };
}

describe('Hermes turn classification (errors arrive as text + end_turn)', () => {
  it.each([
    ['Context length exceeded: max compression attempts (3) reached.', 'context_overflow'],
    ['Working on it.\n\nContext length exceeded: max compression attempts (3) reached.', 'context_overflow'],
    ['HTTP 401: Incorrect API key provided: sk-local***', 'auth_error'],
    ['HTTP 403: Forbidden', 'auth_error'],
    ['Ran the tool.\n\nHTTP 429: rate limited', 'agent_error'],
    ['Error: connection reset by peer', 'agent_error'],
  ])('%j → %s', (text, code) => {
    expect(classifyHermesTurn(turn(text))?.code).toBe(code);
  });

  it.each([
    'The server answered HTTP 401 when I tried; let me explain.',
    'Here is the log:\n\nError: foo\n\nI fixed it.',
    'Context length exceeded is what the message would say.\n\nAll good now.',
    '',
  ])('leaves ordinary text alone: %j', (text) => {
    expect(classifyHermesTurn(turn(text))).toBeUndefined();
  });

  it('ignores cancelled turns', () => {
    expect(classifyHermesTurn(turn('HTTP 401: x', true))).toBeUndefined();
  });
});

describe('linking Hermes synthetic permission ids to announced tool calls', () => {
  const open = [
    call('tc-aaaaaaaaaaaa', 'terminal: ls', { toolKind: 'execute' }),
    call('tc-bbbbbbbbbbbb', 'terminal: rm -rf /tmp/x', { toolKind: 'execute' }),
    call('tc-cccccccccccc', 'write: /w/out.txt', { toolKind: 'edit', locations: [{ path: '/w/out.txt' }] }),
  ];

  it('perm-check-N → the open terminal call with the same command', () => {
    expect(
      linkHermesPermission(
        { toolCallId: 'perm-check-1', rawInput: { command: 'rm -rf /tmp/x' } },
        { openToolCalls: open },
      ),
    ).toBe('tc-bbbbbbbbbbbb');
    expect(
      linkHermesPermission(
        { toolCallId: 'perm-check-2', title: 'recursive delete: rm -rf /tmp/x' },
        { openToolCalls: open },
      ),
    ).toBe('tc-bbbbbbbbbbbb');
  });

  it('edit-approval-N → the open edit call on the same path (rawInput, diff content or title)', () => {
    expect(
      linkHermesPermission(
        { toolCallId: 'edit-approval-1', rawInput: { tool: 'write_file', arguments: { path: '/w/out.txt' } } },
        { openToolCalls: open },
      ),
    ).toBe('tc-cccccccccccc');
    expect(
      linkHermesPermission(
        { toolCallId: 'edit-approval-2', content: [{ type: 'diff', path: '/w/out.txt', newText: 'x' }] },
        { openToolCalls: open },
      ),
    ).toBe('tc-cccccccccccc');
    expect(
      linkHermesPermission(
        { toolCallId: 'edit-approval-3', title: 'Approve edit: /w/out.txt' },
        { openToolCalls: open },
      ),
    ).toBe('tc-cccccccccccc');
  });

  it('leaves real ids, unmatched requests and calls already asking alone', () => {
    expect(
      linkHermesPermission({ toolCallId: 'tc-aaaaaaaaaaaa', rawInput: { command: 'ls' } }, { openToolCalls: open }),
    ).toBeUndefined();
    expect(
      linkHermesPermission(
        { toolCallId: 'perm-check-1', rawInput: { command: 'mkfs /dev/sda' } },
        { openToolCalls: open },
      ),
    ).toBeUndefined();
    const asking = [
      call('tc-dddddddddddd', 'terminal: ls', { toolKind: 'execute', permission: { requestId: 0, status: 'pending' } }),
    ];
    expect(
      linkHermesPermission({ toolCallId: 'perm-check-1', rawInput: { command: 'ls' } }, { openToolCalls: asking }),
    ).toBeUndefined();
  });
});

describe('other Hermes switches', () => {
  it('detects a resume answered with another session id (_meta…acpSessionId)', () => {
    const meta = (id: string) => ({ models: {}, _meta: { hermes: { sessionProvenance: { acpSessionId: id } } } });
    expect(hermesStrayResumeId(meta('new-id'), 'asked-id')).toBe('new-id');
    expect(hermesStrayResumeId(meta('asked-id'), 'asked-id')).toBeUndefined();
    expect(hermesStrayResumeId({}, 'asked-id')).toBeUndefined();
  });

  it('explains "No LLM provider configured" as `hermes setup`', () => {
    const e = new RequestError(-32603, 'Internal error', {
      details:
        'No LLM provider configured. Run `hermes model` to select a provider, or run `hermes setup` for first-time configuration.',
    });
    expect(hermesSetupError(e, {})?.message).toBe(
      'Hermes has no model provider configured. Run `hermes setup` to pick a model and add a key.',
    );
    expect(hermesSetupError(e, { profile: 'work' })?.message).toMatch(/`hermes -p work setup`/);
    expect(hermesSetupError(new RequestError(-32602, 'Invalid params'), {})).toBeUndefined();
  });

  it('switches on cumulative usage, {} = not found, the catalog rules, and reload + reset after set_model', async () => {
    const h = hermesHooks();
    expect(h).toMatchObject({ usageMode: 'cumulative', loadEmptyMeansNotFound: true, settleOnTurnEnd: true });
    expect(h.modelRows).toBeTypeOf('function');
    const calls: string[] = [];
    await h.afterSetModel!({
      reload: async () => void calls.push('reload'),
      resetUsage: () => void calls.push('reset'),
    });
    expect(calls).toEqual(['reset', 'reload']);
  });

  it('says when an image will only reach the model as a description', () => {
    const img = [
      { type: 'text', text: 'see' },
      { type: 'image', data: 'x', mimeType: 'image/png' },
    ];
    const caps = { image: true, audio: false, embeddedContext: false };
    expect(hermesHooks({ supportsVision: false }).mapPrompt!(img, caps).notices.map((n) => n.code)).toEqual([
      'image_described',
    ]);
    expect(hermesHooks({ supportsVision: true }).mapPrompt!(img, caps).notices).toEqual([]);
    const withheld = hermesHooks({ supportsVision: false }).mapPrompt!(img, { ...caps, image: false });
    expect(withheld.blocks).toEqual([{ type: 'text', text: 'see' }]);
    expect(withheld.notices.map((n) => n.code)).toEqual(['image_withheld']);
  });
});
