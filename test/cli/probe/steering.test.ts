import { describe, it, expect } from 'vitest';
import { steeringFor } from '../../../src/cli/probe/steering.js';
import { describeCall, traceToolCalls } from '../../../src/cli/probe/tool-calls.js';
import type { Recorded } from '../../../src/cli/probe/recorder.js';

describe('probe steering table', () => {
  it('recognises agents by agentInfo.name; anything else gets the generic prompts', () => {
    expect(steeringFor('talaria-demo').id).toBe('demo');
    expect(steeringFor('hermes-agent').id).toBe('hermes');
    expect(steeringFor('hermes').id).toBe('hermes');
    expect(steeringFor('claude-code-acp').id).toBe('generic');
    expect(steeringFor(undefined).id).toBe('generic');
  });

  it('uses the known steering words, and says when an agent cannot be steered', () => {
    const demo = steeringFor('talaria-demo');
    expect([demo.tool, demo.slow, demo.run?.('echo hi')]).toEqual(['tour', 'slow', 'run echo hi']);
    expect(demo.mcp).toBeNull();
    const hermes = steeringFor('hermes-agent');
    expect(hermes.tool).toMatch(/^TOOLS: /);
    expect(hermes.slow).toMatch(/^SLOW /);
    expect(hermes.run?.('echo "$X"')).toBe('RUN echo "$X"');
    expect(hermes.mcp?.('srv', 'probe_echo')).toMatch(/^MCP probe_echo /);
    const generic = steeringFor('x');
    expect(generic.run?.('echo "$X"')).toContain('echo "$X"');
    expect(generic.mcp?.('srv', 'tool')).toContain('"tool" of the MCP server "srv"');
  });
});

describe('tool-call traces from raw frames', () => {
  let i = 0;
  const upd = (update: Record<string, unknown>): Recorded => ({
    i: i++,
    at: i,
    dir: 'agent->client',
    check: 't',
    msg: { jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update } },
  });

  it('follows status transitions; a call whose last status is not terminal is dangling', () => {
    const frames = [
      upd({ sessionUpdate: 'tool_call', toolCallId: 'a', title: 'read: x', kind: 'read' }),
      upd({ sessionUpdate: 'tool_call', toolCallId: 'b', title: 'Run ls', kind: 'execute', status: 'pending' }),
      upd({ sessionUpdate: 'tool_call_update', toolCallId: 'b', status: 'in_progress' }),
      upd({
        sessionUpdate: 'tool_call_update',
        toolCallId: 'b',
        status: 'completed',
        content: [{ type: 'content', content: { type: 'text', text: 'out-123' } }],
      }),
      upd({ sessionUpdate: 'tool_call_update', toolCallId: 'c', status: 'failed' }),
      upd({ sessionUpdate: 'tool_call_update', status: 'completed' }),
      upd({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'hi' } }),
    ];
    const { calls, missingIds } = traceToolCalls(frames, 's');
    expect(missingIds).toBe(1);
    expect(calls.map((c) => [c.id, c.statuses, c.closed, c.announced])).toEqual([
      ['a', ['(none)'], false, true],
      ['b', ['pending', 'in_progress', 'completed'], true, true],
      ['c', ['failed'], true, false],
    ]);
    expect(calls[1]!.text).toContain('out-123');
    expect(describeCall(calls[0]!)).toBe('a "read: x" [read]: (none) → never completed');
    expect(traceToolCalls(frames, 'other-session').calls).toEqual([]);
  });
});
