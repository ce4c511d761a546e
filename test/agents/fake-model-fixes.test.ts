/** Two corrections real agents forced on the fake model (see the matrix report). */
import { describe, expect, it } from 'vitest';
import { anthropicConversation } from './fake-model/anthropic.js';
import { chatConversation } from './fake-model/openai-chat.js';
import { decide, pickTool } from './fake-model/index.js';

describe('fake model: steering when an agent folds a failed prompt into the next one', () => {
  it('Claude Code: [[error]] from the failed prompt does not steer the next prompt of the same user message', () => {
    const conv = anthropicConversation({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>x</system-reminder>' },
            { type: 'text', text: 'fail [[error: 400]]' },
            { type: 'text', text: 'say A' },
          ],
        },
      ],
    });
    expect(conv.lastUserText).toBe('say A');
    expect(decide(conv)).toMatchObject({ kind: 'echo', text: 'You said: say A' });
  });

  it('qwen (chat completions parts): the newest part steers', () => {
    const conv = chatConversation({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '[[error: 400]]' },
            { type: 'text', text: '[[bash: echo hi]]' },
          ],
        },
      ],
    });
    expect(decide(conv).kind).not.toBe('error');
  });

  it('one text block is still read whole', () => {
    expect(
      anthropicConversation({ messages: [{ role: 'user', content: [{ type: 'text', text: 'a\n[[error: 429]]' }] }] })
        .lastUserText,
    ).toBe('a\n[[error: 429]]');
  });
});

describe('fake model: claude-code-acp offers its client-backed tools over MCP', () => {
  it('mcp__acp__Bash / Read / Write are chosen for bash, read and write', () => {
    const tools = [
      {
        name: 'mcp__acp__Bash',
        schema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      },
      {
        name: 'mcp__acp__Read',
        schema: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
      },
      {
        name: 'mcp__acp__Write',
        schema: {
          type: 'object',
          properties: { file_path: { type: 'string' }, content: { type: 'string' } },
          required: ['file_path', 'content'],
        },
      },
      { name: 'mcp__github__search', schema: { type: 'object', properties: { query: { type: 'string' } } } },
    ];
    expect(pickTool('bash', tools)?.name).toBe('mcp__acp__Bash');
    expect(pickTool('read', tools)?.name).toBe('mcp__acp__Read');
    expect(pickTool('write', tools)?.name).toBe('mcp__acp__Write');
    expect(pickTool('read', [tools[3]!])).toBeUndefined();
  });
});

describe('fake model: context blocks next to the prompt', () => {
  it('kilo: an <environment_details> block after the prompt does not hide it', () => {
    const conv = chatConversation({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '[[bash: echo matrix-ok]]' },
            { type: 'text', text: '<environment_details>\nWorking directory: /x\n</environment_details>' },
          ],
        },
      ],
    });
    expect(decide(conv)).toMatchObject({ kind: 'echo', text: expect.stringContaining('No bash tool') });
  });
});
