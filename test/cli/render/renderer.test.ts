import { describe, it, expect } from 'vitest';
import { ChatRenderer } from '../../../src/cli/render/renderer.js';
import { createStyle } from '../../../src/cli/render/style.js';
import { stripAnsi } from '../../../src/cli/render/width.js';
import type { SessionEvent } from '../../../src/session/events.js';
import type { Entry, ToolCallEntry } from '../../../src/thread/types.js';

let seq = 0;
const ev = (type: string, body: Record<string, unknown>) =>
  ({ type, sessionId: 's', seq: ++seq, at: 0, ...body }) as unknown as SessionEvent;
const added = (index: number, entry: Entry) => ev('entry.added', { index, entry: structuredClone(entry) });
const updated = (index: number, entry: Entry) => ev('entry.updated', { index, entry: structuredClone(entry) });
const msg = (id: string, kind: 'assistant_message' | 'thought' | 'user_message', text: string): Entry => ({
  id,
  kind,
  text,
  blocks: [],
});
const tool = (over: Partial<ToolCallEntry>): ToolCallEntry => ({
  id: 't1',
  kind: 'tool_call',
  toolCallId: 'call-1',
  title: 'Edit notes.txt',
  toolKind: 'edit',
  status: 'pending',
  content: [],
  locations: [{ path: '/w/notes.txt' }],
  ...over,
});

function renderer(o: { color?: boolean; live?: boolean } = {}) {
  const r = new ChatRenderer({ style: createStyle(o.color ?? false), live: o.live ?? true });
  const committed: string[] = [];
  return {
    r,
    committed,
    feed(...events: SessionEvent[]) {
      for (const e of events) r.handle(e);
      committed.push(...r.takeCommitted());
    },
    plain: () => committed.map(stripAnsi),
    live: () => r.liveLines().map(stripAnsi),
  };
}

describe('ChatRenderer: streamed text', () => {
  it('commits whole lines; the partial line lives in the live region until its newline', () => {
    const t = renderer();
    t.feed(added(0, msg('a', 'assistant_message', 'Hel')));
    expect(t.committed).toEqual([]);
    expect(t.live()[0]).toBe('Hel');
    t.feed(updated(0, msg('a', 'assistant_message', 'Hello\nWor')));
    expect(t.plain()).toEqual(['Hello']);
    expect(t.live()[0]).toBe('Wor');
    t.feed(updated(0, msg('a', 'assistant_message', 'Hello\nWorld\n')));
    expect(t.plain()).toEqual(['Hello', 'World']);
    expect(t.live()).toHaveLength(1); // only the status line is left
  });

  it('thinking is dimmed and marked; a new block starts after one blank line; leading blank lines are dropped', () => {
    const t = renderer({ color: true });
    t.feed(added(0, msg('th', 'thought', 'Let me think.\n')));
    expect(t.committed[0]).toContain('\x1b[2m');
    expect(stripAnsi(t.committed[0]!)).toBe('┊ Let me think.');
    t.feed(added(1, msg('a', 'assistant_message', '\n\nAnswer.\n')));
    expect(t.plain()).toEqual(['┊ Let me think.', '', 'Answer.']);
  });

  it('user messages are shown with a marker; agent text cannot smuggle escape sequences', () => {
    const t = renderer();
    t.feed(
      added(0, msg('u', 'user_message', 'hi there')),
      added(1, msg('a', 'assistant_message', 'bad \x1b[2J\x1b]0;title\x07 text\n')),
    );
    const out = t.committed.join('\n');
    expect(out).toContain('› hi there');
    expect(out).not.toContain('\x1b');
    expect(out).toContain('␛[2J');
  });

  it('with colour off (NO_COLOR, pipes) nothing carries an escape sequence', () => {
    const t = renderer({ color: false });
    t.feed(
      ev('session.state', { state: 'running', previous: 'idle' }),
      added(0, msg('th', 'thought', 'hmm\n')),
      added(
        1,
        tool({
          status: 'completed',
          content: [{ type: 'diff', path: '/w/notes.txt', oldText: 'a\n', newText: 'b\n' }],
        }),
      ),
      ev('turn.ended', {
        turnId: 't',
        stopReason: 'error',
        durationMs: 5,
        error: { code: 'agent_crashed', message: 'gone' },
      }),
    );
    for (const l of [...t.committed, ...t.r.liveLines()]) expect(l).not.toContain('\x1b');
  });
});

describe('ChatRenderer: tool cards, permissions, plan, status', () => {
  it('a running call is a live card with a spinner; once settled it is committed with its diff', () => {
    const t = renderer({ color: true });
    t.feed(ev('session.state', { state: 'running', previous: 'idle' }), added(0, tool({ status: 'in_progress' })));
    expect(t.committed).toEqual([]);
    expect(t.live()[0]).toMatch(/^◐ \[edit\] Edit notes\.txt/);
    t.r.tick();
    expect(t.live()[0]).toMatch(/^◓ /);
    const diff = { type: 'diff', path: '/w/notes.txt', oldText: 'hello\n', newText: 'hello\nworld\n' };
    t.feed(updated(0, tool({ status: 'completed', content: [diff] })));
    const plain = t.plain();
    expect(plain[0]).toBe('✓ [edit] Edit notes.txt completed');
    expect(plain).toContain('  ↳ /w/notes.txt');
    expect(plain).toContain('  +world');
    expect(t.committed.find((l) => stripAnsi(l) === '  +world')).toContain('\x1b[32m'); // green
    expect(t.live().some((l) => l.includes('Edit notes.txt'))).toBe(false);
  });

  it('without a TTY a card is committed when it starts and again when it settles', () => {
    const t = renderer({ live: false });
    t.feed(added(0, tool({ status: 'pending', title: 'Run ls', toolKind: 'execute', locations: [] })));
    expect(t.plain()).toEqual(['○ [execute] Run ls']);
    t.feed(
      updated(
        0,
        tool({
          status: 'failed',
          title: 'Run ls',
          toolKind: 'execute',
          locations: [],
          content: [{ type: 'content', content: { type: 'text', text: 'boom' } }],
        }),
      ),
    );
    expect(t.plain().slice(1)).toEqual(['✗ [execute] Run ls failed', '  │ boom']);
    expect(t.r.liveLines()).toEqual([]);
  });

  it('a permission question shows the card with its diff, then the question', () => {
    const t = renderer();
    const call = tool({
      content: [{ type: 'diff', path: '/w/notes.txt', oldText: null, newText: 'new\n' }],
      permission: { requestId: 0, status: 'pending' },
    });
    t.feed(
      added(0, call),
      ev('permission.asked', {
        requestKey: 's:0',
        toolCallId: 'call-1',
        title: 'Edit notes.txt',
        options: [],
        subject: {},
      }),
    );
    const plain = t.plain();
    expect(plain[0]).toBe('○ [edit] Edit notes.txt · waiting for permission');
    expect(plain).toContain('  +new');
    expect(plain).toContain('? Permission needed: Edit notes.txt');
    // The card is not repeated in the live region while it waits.
    expect(t.live().some((l) => l.includes('waiting for permission'))).toBe(false);
    t.feed(
      ev('permission.decided', {
        requestKey: 's:1',
        toolCallId: 'x',
        outcome: { outcome: 'selected', optionId: 'allow' },
        decidedBy: 'policy',
        reason: 'auto mode allows everything',
      }),
    );
    expect(t.plain().at(-1)).toBe('  ↳ permission answered (policy): auto mode allows everything');
  });

  it('the plan is live while the turn runs and committed with the turn summary', () => {
    const t = renderer();
    const plan = [
      { content: 'Read', status: 'completed' },
      { content: 'Write', status: 'in_progress' },
      { content: 'Ship', status: 'pending' },
    ];
    t.feed(ev('session.state', { state: 'running', previous: 'idle' }), ev('plan.updated', { plan }));
    expect(t.live().slice(0, 4)).toEqual(['Plan', '  ☑ Read', '  ◐ Write', '  ☐ Ship']);
    t.feed(
      ev('session.state', { state: 'idle', previous: 'running' }),
      ev('turn.ended', {
        turnId: 't',
        stopReason: 'end_turn',
        durationMs: 1500,
        usage: { inputTokens: 1200, outputTokens: 34 },
      }),
    );
    expect(t.plain()).toEqual([
      'Plan',
      '  ☑ Read',
      '  ◐ Write',
      '  ☐ Ship',
      '',
      '✓ done · 1.5s · in 1.2k out 34 tokens',
      '',
    ]);
    expect(t.live()).toHaveLength(1);
  });

  it('status line: state, queue, model and mode ids, context meter, last usage', () => {
    const t = renderer();
    t.feed(
      ev('catalog.updated', {
        catalog: {
          others: [],
          model: { kind: 'model', source: 'config', currentId: 'demo-fast', options: [] },
          mode: { kind: 'mode', source: 'config', currentId: 'ask', options: [] },
        },
      }),
      ev('context.updated', { context: { used: 64_000, size: 128_000 } }),
    );
    expect(t.live()).toEqual(['─ ● ready · model demo-fast · mode ask · ctx ▰▰▰▰▱▱▱▱ 50% 64k/128k']);
    t.feed(
      ev('session.state', { state: 'running', previous: 'idle' }),
      ev('turn.queued', { turnId: 'q1', position: 1 }),
      ev('mode.updated', { modeId: 'auto' }),
    );
    expect(t.live()[0]).toBe('─ ◐ working · 1 queued · model demo-fast · mode auto · ctx ▰▰▰▰▱▱▱▱ 50% 64k/128k');
    t.feed(ev('turn.started', { turnId: 'q1', prompt: [] }));
    expect(t.live()[0]).not.toContain('queued');
  });

  it('turn endings: cancelled, refusal, error with its code, other stop reasons', () => {
    const t = renderer();
    const end = (stopReason: string, extra: Record<string, unknown> = {}) =>
      ev('turn.ended', { turnId: 't', stopReason, durationMs: 100, ...extra });
    const crash = {
      code: 'agent_crashed',
      message: 'agent exited with code 3; stderr: Traceback\nRuntimeError: boom',
      data: { exitCode: 3 },
    };
    t.feed(end('cancelled'), end('refusal'), end('error', { error: crash }), end('max_tokens'));
    expect(t.plain().filter((l) => l !== '')).toEqual([
      '⊘ cancelled · 0.1s',
      '⊘ the agent refused · 0.1s',
      '✗ agent_crashed: agent exited with code 3',
      '  | Traceback',
      '  | RuntimeError: boom',
      '■ stopped: max_tokens · 0.1s',
    ]);
  });
});
