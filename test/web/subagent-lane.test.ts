import { describe, expect, it } from 'vitest';
import { readEntry } from '../../web/src/state/entries.js';
import { readDelegation } from '../../src/providers/hermes/delegation.js';
import { loadReal } from '../fakes/hermes/fixture-driver.js';
import type { ToolView } from '../../web/src/state/entries.js';

/** Which tool cards are Hermes delegations: only the exact forms a built 0.18.2 sends (fixture 20-delegate). */
const updates = () =>
  loadReal('20-delegate')
    .map((l) => l.msg.params?.update)
    .filter((u) => u && /^tool_call/.test(u.sessionUpdate));

const tool = (fields: Record<string, unknown>): ToolView =>
  readEntry({ kind: 'tool_call', id: 'e1', status: 'pending', content: [], locations: [], ...fields }, 0) as ToolView;

describe('subagent lane: reading a delegation', () => {
  it('the recorded tool_call (starting) and, once its update replaced the content, the dispatched body', () => {
    const [start, done] = updates();
    const goal = 'CHILDTASK: read notes.txt in /workspace and report its first line';
    const started = tool({
      toolCallId: start.toolCallId,
      title: start.title,
      toolKind: start.kind,
      content: start.content,
    });
    expect(readDelegation(started)).toEqual({ goals: [goal], dispatched: false });
    const dispatched = tool({
      toolCallId: start.toolCallId,
      title: start.title,
      toolKind: done.kind,
      status: done.status,
      content: done.content,
    });
    expect(readDelegation(dispatched)).toEqual({ goals: [goal], delegationId: 'deleg_e4d930d6', dispatched: true });
  });

  it('anything else stays a plain tool card', () => {
    expect(
      readDelegation(tool({ toolCallId: 't', title: 'terminal: echo hi', toolKind: 'execute', content: [] })),
    ).toBeUndefined();
    // A title alone is not enough: the body must be one Hermes sends.
    expect(
      readDelegation(
        tool({
          toolCallId: 't',
          title: 'delegate: x',
          toolKind: 'execute',
          content: [{ type: 'content', content: { type: 'text', text: 'hello' } }],
        }),
      ),
    ).toBeUndefined();
    expect(
      readDelegation(
        tool({
          toolCallId: 't',
          title: 'delegate: x',
          toolKind: 'other',
          content: [{ type: 'content', content: { type: 'text', text: 'Delegating task:\nx' } }],
        }),
      ),
    ).toBeUndefined();
  });
});
