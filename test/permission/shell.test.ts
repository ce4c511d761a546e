import { describe, it, expect } from 'vitest';
import { parseShell, simpleCommands } from '../../src/permission/shell.js';

const words = (src: string) => parseShell(src).map((p) => p.map((c) => c.words));

describe('parseShell', () => {
  it.each([
    ['ls -la', [[['ls', '-la']]]],
    ['a && b || c; d & e', [[['a']], [['b']], [['c']], [['d']], [['e']]]],
    ['a | b |& c', [[['a'], ['b'], ['c']]]],
    ['echo "a b" \'c d\' e\\ f', [[['echo', 'a b', 'c d', 'e f']]]],
    ['echo "x\\"y"', [[['echo', 'x"y']]]],
    ['(cd x && make)', [[['cd', 'x']], [['make']]]],
    ['a\nb', [[['a']], [['b']]]],
    ['ls # rm -rf x', [[['ls']]]],
    ['echo a#b', [[['echo', 'a#b']]]],
    ['line \\\ncontinued', [[['line', 'continued']]]],
  ] as const)('%j', (src, expected) => {
    expect(words(src)).toEqual(expected);
  });

  it('separates redirections from words, dropping fd numbers', () => {
    const [c] = simpleCommands('cmd arg 2>/dev/null >> out.log &>all <in');
    expect(c!.words).toEqual(['cmd', 'arg']);
    expect(c!.redirects).toEqual([
      { op: '>', target: '/dev/null' },
      { op: '>>', target: 'out.log' },
      { op: '&>', target: 'all' },
      { op: '<', target: 'in' },
    ]);
  });

  it('returns commands from substitutions, also attached to their host command', () => {
    const all = simpleCommands('echo "$(id -u)" `whoami` <(cat f)');
    expect(all.map((c) => c.words[0])).toEqual(['id', 'whoami', 'cat', 'echo']);
    const host = all[all.length - 1]!;
    expect(host.subs.map((c) => c.words[0])).toEqual(['id', 'whoami', 'cat']);
  });

  it('does not run single-quoted substitutions', () => {
    expect(simpleCommands("echo '$(rm -rf x)'").map((c) => c.words)).toEqual([['echo', '$(rm -rf x)']]);
  });
});
