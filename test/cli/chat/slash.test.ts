import { describe, it, expect } from 'vitest';
import { parseInput } from '../../../src/cli/chat/slash.js';

describe('chat input', () => {
  const agent = ['tour', 'help', 'read', 'steer'];
  it.each([
    ['', { kind: 'empty' }],
    ['   ', { kind: 'empty' }],
    ['hello there', { kind: 'prompt', text: 'hello there' }],
    ['/model', { kind: 'builtin', name: 'model' }],
    ['/model  demo-fast ', { kind: 'builtin', name: 'model', arg: 'demo-fast' }],
    ['/MODE auto', { kind: 'builtin', name: 'mode', arg: 'auto' }],
    ['/export out file.md', { kind: 'builtin', name: 'export', arg: 'out file.md' }],
    ['/exit', { kind: 'builtin', name: 'quit' }],
    ['/help', { kind: 'builtin', name: 'help' }],
    ['/tour', { kind: 'prompt', text: '/tour' }],
    ['/read notes.txt', { kind: 'prompt', text: '/read notes.txt' }],
    ['//help', { kind: 'prompt', text: '/help' }],
    ['/frob', { kind: 'unknown', name: 'frob' }],
    // Ours even when the agent lists its own /steer (Hermes): Talaria picks the agent's way when it works.
    ['/steer use the other file', { kind: 'builtin', name: 'steer', arg: 'use the other file' }],
    ['//steer raw', { kind: 'prompt', text: '/steer raw' }],
  ])('%j', (line, expected) => {
    expect(parseInput(line, agent)).toEqual(expected);
  });
});
