import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { quoteArg, shellLine } from '../../src/os/shell.js';

/** What `sh` makes of a line: its words (printf gives them back, each ended by a NUL). */
function wordsOf(line: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${line}; printf '%s\\0' "$@"`], { encoding: 'utf8' });
  return r.stdout.split('\0').slice(0, -1);
}

describe('os/shell', () => {
  it('quoteArg: safe words stay bare; anything else is one single-quoted word the shell gives back unchanged', () => {
    expect(quoteArg('--model=x/y:1')).toBe('--model=x/y:1');
    const hard = ["it's", 'a b', '$HOME', '`id`', '*', '', 'tab\there', 'new\nline', '"q"', '\\'];
    expect(wordsOf(hard.map(quoteArg).join(' '))).toEqual(hard);
  });

  it('shellLine: a command word with = is quoted, so the shell runs it instead of taking it for an assignment', () => {
    expect(shellLine(['a=b', 'c=d'])).toBe("'a=b' c=d");
    const r = spawnSync('sh', ['-c', shellLine(['FOO=bar', '-x'])], { encoding: 'utf8' });
    expect(r.stderr).toMatch(/FOO=bar: (not found|No such file)/);
  });
});
