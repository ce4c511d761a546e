import { describe, expect, it } from 'vitest';
import { createThread } from '../../src/thread/index.js';
import { buildSeed, cut, DEFAULT_CONTEXT_TOKENS, estimateTokens, IMAGE_TOKENS } from '../../src/thread/seed.js';
import type { ThreadAction } from '../../src/thread/types.js';
import { ended, msg, run, started, toolCall, toolUpdate } from './builders.js';

const img = { type: 'image', mimeType: 'image/png', data: 'iVBORw0KGgo=' };

/** n exchanges, each a user message and an answer of `size` characters, with a tool call every third. */
function conversation(n: number, size = 200, word = 'lorem ') {
  const t = createThread();
  for (let i = 1; i <= n; i++) {
    const actions: ThreadAction[] = [
      started(String(i), `question ${i}: ${word.repeat(size / word.length)}`),
      msg(`answer ${i}: ${word.repeat(size / word.length)}`),
    ];
    if (i % 3 === 0) {
      actions.push(
        toolCall(`c${i}`, {
          title: `read: /w/f${i}.txt`,
          kind: 'read',
          content: [{ type: 'content', content: { type: 'text', text: `line\n`.repeat(500) } }],
        }),
        toolUpdate(`c${i}`, { status: 'completed' }),
      );
    }
    actions.push(ended(String(i)));
    run(t, ...actions);
  }
  return t;
}

describe('transcript seeding', () => {
  it('renders the exchanges oldest first, tool results summarised, with a frame the agent is told not to answer', () => {
    const t = conversation(3, 12);
    const seed = buildSeed(t.entries, { reason: 'overflow', contextSize: 100_000 });
    expect(seed.text.split('\n')[0]).toMatch(
      /^\[Talaria\] This conversation continues from an earlier session \(the previous agent session ran out of context\)\./,
    );
    expect(seed.text).toContain('<transcript>\nUser: question 1: lorem lorem \nAssistant: answer 1: lorem lorem');
    expect(seed.text).toMatch(/- tool read: \/w\/f3\.txt \(completed\): (line ){40,}/);
    expect(seed.text.endsWith('</transcript>')).toBe(true);
    expect(seed).toMatchObject({ exchanges: 3, omitted: 0, images: 0, blocks: [{ type: 'text', text: seed.text }] });
    // A summary, not the 2500-character result.
    expect(seed.text.length).toBeLessThan(1200);
  });

  it.each([
    [2_000, 'lorem '],
    [8_192, 'lorem '],
    [32_000, 'lorem '],
    [200_000, 'lorem '],
    [8_192, 'ключ '],
    [8_192, '文字 '],
  ])('fits the announced context size %i (%s): newest exchanges kept, older ones counted as left out', (size, word) => {
    const t = conversation(60, 3000, word);
    const seed = buildSeed(t.entries, { reason: 'rewind', contextSize: size });
    expect(seed.budget).toBe(Math.floor(size * 0.4));
    expect(seed.tokens).toBeLessThanOrEqual(seed.budget);
    expect(estimateTokens(seed.text)).toBe(seed.tokens);
    expect(seed.exchanges).toBeGreaterThan(0);
    expect(seed.exchanges + seed.omitted).toBe(60);
    expect(seed.text).toContain('question 60');
    if (seed.omitted > 0) expect(seed.text).toContain(`${seed.omitted} earlier exchanges are left out for room`);
  });

  it('uses a conservative default when the agent never said its context size', () => {
    const seed = buildSeed(conversation(80, 3000).entries, { reason: 'continue' });
    expect(seed.budget).toBe(Math.floor(DEFAULT_CONTEXT_TOKENS * 0.4));
    expect(seed.tokens).toBeLessThanOrEqual(seed.budget);
  });

  it('names a message that overflowed the context without repeating it, and drops the agent-said error text', () => {
    const t = createThread();
    run(t, started('1', 'hello'), msg('hi!'), ended('1'));
    run(
      t,
      started('2', `Please read this: ${'x'.repeat(30_000)}`),
      msg('Context length exceeded (9000 tokens). Cannot compress further.'),
      ended('2'),
    );
    run(t, {
      type: 'notice',
      level: 'error',
      code: 'context_overflow',
      text: 'too long',
      data: { agentText: 'Context length exceeded (9000 tokens). Cannot compress further.' },
    });
    run(t, started('3', 'AUTHFAIL'), msg('HTTP 401: bad key'), ended('3'), {
      type: 'notice',
      level: 'error',
      code: 'auth_error',
      text: 'key',
      data: { agentText: 'HTTP 401: bad key' },
    });
    const seed = buildSeed(t.entries, { reason: 'overflow', contextSize: 8192 });
    expect(seed.text).toContain(
      'User: [a message of 30018 characters; it overflowed the context and got no answer, so it is left out]',
    );
    expect(seed.text).not.toContain('xxxx');
    expect(seed.text).not.toContain('Context length exceeded');
    expect(seed.text).toContain('User: AUTHFAIL\n[the turn ended with an error: auth_error]');
    expect(seed.text).not.toContain('HTTP 401');
  });

  it('cuts a long message in the middle (the ask and the conclusion are at its ends)', () => {
    const long = 'START ' + 'middle '.repeat(5000) + ' END';
    const out = cut(long, 100);
    expect(estimateTokens(out)).toBeLessThanOrEqual(100);
    expect(out.startsWith('START ')).toBe(true);
    expect(out.endsWith(' END')).toBe(true);
    expect(out).toContain(' […] ');
  });

  it('keeps images when the agent takes them, and says they were not passed on when it does not', () => {
    const t = createThread();
    run(
      t,
      { type: 'turn.started', turnId: '1', prompt: [{ type: 'text', text: 'what is this?' }, img] },
      msg('a cat'),
      ended('1'),
    );
    const withImages = buildSeed(t.entries, { reason: 'continue', contextSize: 32_000, images: true });
    expect(withImages.blocks).toEqual([{ type: 'text', text: withImages.text }, img]);
    expect(withImages.tokens).toBe(estimateTokens(withImages.text) + IMAGE_TOKENS);
    const without = buildSeed(t.entries, { reason: 'continue', contextSize: 32_000, images: false });
    expect(without.blocks).toHaveLength(1);
    expect(without.text).toContain('User: what is this?\n[1 image attached; not passed on]');
  });

  it('stops before a given entry (rewind: the edited message and what followed are left out) and names the agent it came from', () => {
    const t = conversation(5, 12);
    const fourth = t.entries.find((e) => e.kind === 'user_message' && e.text.startsWith('question 4'))!;
    const seed = buildSeed(t.entries, { reason: 'continue', before: fourth.id, from: 'Hermes' });
    expect(seed.exchanges).toBe(3);
    expect(seed.text).toContain('question 3');
    expect(seed.text).not.toContain('question 4');
    expect(seed.text).toMatch(
      /^\[Talaria\] This conversation continues from an earlier session with Hermes \(the user moved the conversation to this agent\)/,
    );
  });
});
