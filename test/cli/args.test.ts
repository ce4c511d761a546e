import { describe, it, expect } from 'vitest';
import { choice, parse, splitCommand, UsageError } from '../../src/cli/args.js';

describe('splitCommand (--agent-cmd)', () => {
  it.each([
    ['hermes acp', ['hermes', 'acp']],
    ['  node   agent.js  ', ['node', 'agent.js']],
    [`"/opt/my agent/bin" --flag 'a b'`, ['/opt/my agent/bin', '--flag', 'a b']],
    [`say "he said \\"hi\\"" 'it''s'`, ['say', 'he said "hi"', 'its']],
    [`a\\ b c`, ['a b', 'c']],
    [`x "" y`, ['x', '', 'y']],
    [`"$HOME" '$HOME'`, ['$HOME', '$HOME']],
    [`opt=--x="1 2"`, ['opt=--x=1 2']],
    ['', []],
  ])('%j', (line, words) => {
    expect(splitCommand(line)).toEqual(words);
  });

  it('rejects an open quote', () => {
    expect(() => splitCommand(`a "b`)).toThrow(UsageError);
    expect(() => splitCommand(`a 'b`)).toThrow(/unterminated single quote/);
  });
});

describe('parse / choice', () => {
  it('usage errors name the command and the problem, on one line', () => {
    expect(() => parse('run', ['--nope'], {})).toThrow(/^run: unknown option '--nope'$/);
    expect(() => parse('run', ['--cwd'], { cwd: { type: 'string' } })).toThrow(/^run: option '--cwd' needs a value$/);
    expect(() => choice('run', 'approve', 'x', ['a', 'b'] as const, 'a')).toThrow(
      /--approve must be one of a, b \(got 'x'\)/,
    );
    expect(choice('run', 'approve', undefined, ['a', 'b'] as const, 'b')).toBe('b');
  });

  it('positionals after -- may start with a dash; -h is help', () => {
    expect(parse('run', ['--', '-rf'], {}).positionals).toEqual(['-rf']);
    expect(parse('run', ['-h'], {}).values.help).toBe(true);
  });
});
