import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import fc from 'fast-check';
import { quoteArg, shellLine, ShellSyntaxError, splitWords } from '../../src/os/shell.js';

/** What `sh` makes of a line: its words (printf gives them back, each ended by a NUL). */
function wordsOf(line: string): string[] {
  const r = spawnSync('sh', ['-c', `set -- ${line}; for a; do printf '%s\\0' "$a"; done`], { encoding: 'utf8' });
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

  it('splitWords is shellLine read back: any argv survives the round trip', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.string({ unit: 'binary', minLength: 1 }).filter((w) => !w.includes('\0')),
          { minLength: 1 },
        ),
        (argv) => {
          expect(splitWords(shellLine(argv))).toEqual(argv);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('splitWords reads a line as sh does (quotes, escapes, no expansion), and refuses an open quote', () => {
    // Lines from the characters that matter for splitting; $ ` * ? [ ~ { are left out: sh would expand them.
    const piece = fc.constantFrom(
      'a',
      'b',
      ' ',
      '  ',
      '\t',
      "'",
      '"',
      '\\',
      "'x y'",
      '"p q"',
      '"\\""',
      '\\ ',
      '-',
      '=',
      '/',
    );
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 12 }).map((ps) => ps.join('')),
        (line) => {
          // eval: the line is the whole input, as it would be to `sh -c` (nothing after it to escape).
          const sh = spawnSync('sh', ['-c', `eval "set -- $L" && for a; do printf '%s\\0' "$a"; done`], {
            encoding: 'utf8',
            env: { PATH: process.env.PATH, L: line },
          });
          let ours: string[] | 'refused';
          try {
            ours = splitWords(line);
          } catch (e) {
            expect(e).toBeInstanceOf(ShellSyntaxError);
            ours = 'refused';
          }
          if (sh.status !== 0) expect(ours).toBe('refused');
          else expect(ours).toEqual(sh.stdout.split('\0').slice(0, -1));
        },
      ),
      { numRuns: 300 },
    );
  });
});
