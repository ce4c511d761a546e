import { describe, it, expect } from 'vitest';
import {
  commandMatches,
  escapeCommandPattern,
  escapeGlob,
  evaluate,
  globMatchesAll,
  isInsideRoots,
} from '../../src/permission/policy.js';
import type { Decision, PermissionMode, PermissionRule, PermissionSubject } from '../../src/permission/types.js';

const ROOTS = ['/ws', '/extra'];

function subj(kind: string | undefined, paths: string[] = [], command?: string): PermissionSubject {
  const s: PermissionSubject = { sessionId: 's', toolCallId: 't', paths, roots: ROOTS };
  if (kind !== undefined) s.toolKind = kind;
  if (command !== undefined) s.command = command;
  return s;
}

describe('evaluate — mode defaults (no rules)', () => {
  const table: [PermissionMode, PermissionSubject, Decision][] = [
    ['ask', subj('edit', ['/ws/a.ts']), 'ask'],
    ['ask', subj('read', ['/ws/a.ts']), 'ask'],
    ['ask', subj('execute', [], 'npm test'), 'ask'],
    ['ask', subj(undefined), 'ask'],
    ['accept-edits', subj('edit', ['/ws/a.ts']), 'allow'],
    ['accept-edits', subj('delete', ['/ws/src/old.ts']), 'allow'],
    ['accept-edits', subj('move', ['/ws/a.ts', '/ws/b/a.ts']), 'allow'],
    ['accept-edits', subj('edit', ['/extra/notes.md']), 'allow'],
    ['accept-edits', subj('edit', ['/ws']), 'allow'],
    ['accept-edits', subj('move', ['/ws/a.ts', '/tmp/a.ts']), 'ask'],
    ['accept-edits', subj('edit', ['/etc/hosts']), 'ask'],
    ['accept-edits', subj('edit', ['/ws-other/a.ts']), 'ask'],
    ['accept-edits', subj('edit', []), 'ask'],
    ['accept-edits', subj('read', ['/ws/a.ts']), 'ask'],
    ['accept-edits', subj('execute', [], 'npm test'), 'ask'],
    ['accept-edits', subj('fetch'), 'ask'],
    ['accept-edits', subj(undefined, ['/ws/a.ts']), 'ask'],
    ['auto', subj('edit', ['/etc/hosts']), 'allow'],
    ['auto', subj('execute', [], 'npm test'), 'allow'],
    ['auto', subj('other'), 'allow'],
    ['auto', subj(undefined), 'allow'],
  ];
  it.each(table)('%s: %j → %s', (mode, s, expected) => {
    const r = evaluate(s, { mode, rules: [] });
    expect(r.decision).toBe(expected);
    expect(r.rule).toBeUndefined();
    expect(r.forcedAsk).toBeUndefined();
    expect(r.reason).not.toBe('');
  });
});

describe('evaluate — rules', () => {
  const allowRead: PermissionRule = { decision: 'allow', toolKind: 'read' };
  const table: [string, PermissionMode, PermissionRule[], PermissionSubject, Decision, number | undefined][] = [
    ['kind rule matches', 'ask', [allowRead], subj('read', ['/ws/a']), 'allow', 0],
    ['kind rule skips other kinds', 'ask', [allowRead], subj('edit', ['/ws/a']), 'ask', undefined],
    ['kind rule never matches an untyped call', 'ask', [allowRead], subj(undefined, ['/ws/a']), 'ask', undefined],
    ['kind list', 'ask', [{ decision: 'allow', toolKind: ['read', 'search'] }], subj('search'), 'allow', 0],
    [
      'relative glob inside a root',
      'ask',
      [{ decision: 'allow', pathGlob: 'src/**' }],
      subj('edit', ['/ws/src/a/b.ts']),
      'allow',
      0,
    ],
    [
      'relative glob against the second root',
      'ask',
      [{ decision: 'allow', pathGlob: 'src/**' }],
      subj('edit', ['/extra/src/x']),
      'allow',
      0,
    ],
    [
      'glob must match EVERY path',
      'ask',
      [{ decision: 'allow', pathGlob: 'src/**' }],
      subj('move', ['/ws/src/a', '/ws/b']),
      'ask',
      undefined,
    ],
    [
      'relative glob never matches outside the roots',
      'ask',
      [{ decision: 'allow', pathGlob: '**' }],
      subj('edit', ['/etc/hosts']),
      'ask',
      undefined,
    ],
    [
      'glob rule never matches a subject without paths',
      'ask',
      [{ decision: 'allow', pathGlob: '**' }],
      subj('execute', [], 'ls'),
      'ask',
      undefined,
    ],
    ['absolute glob', 'ask', [{ decision: 'allow', pathGlob: '/tmp/**' }], subj('edit', ['/tmp/x/y']), 'allow', 0],
    [
      'globs see dotfiles (dot: true)',
      'ask',
      [{ decision: 'allow', pathGlob: '**' }],
      subj('edit', ['/ws/.prettierrc']),
      'allow',
      0,
    ],
    ['command glob', 'ask', [{ decision: 'allow', command: 'git *' }], subj('execute', [], 'git status'), 'allow', 0],
    [
      'command glob does not cross ;',
      'ask',
      [{ decision: 'allow', command: 'git *' }],
      subj('execute', [], 'git status; curl x -o y'),
      'ask',
      undefined,
    ],
    [
      'command glob does not cross &&',
      'ask',
      [{ decision: 'allow', command: 'git *' }],
      subj('execute', [], 'git status && ls'),
      'ask',
      undefined,
    ],
    [
      'command glob does not cross $(…)',
      'ask',
      [{ decision: 'allow', command: 'echo *' }],
      subj('execute', [], 'echo $(id)'),
      'ask',
      undefined,
    ],
    [
      'exact command, whitespace-insensitive',
      'ask',
      [{ decision: 'allow', command: 'npm test' }],
      subj('execute', [], '  npm   test '),
      'allow',
      0,
    ],
    [
      'exact command is exact',
      'ask',
      [{ decision: 'allow', command: 'npm test' }],
      subj('execute', [], 'npm test --watch'),
      'ask',
      undefined,
    ],
    [
      'command rule never matches without a command',
      'auto',
      [{ decision: 'deny', command: '*' }],
      subj('edit', ['/ws/a']),
      'allow',
      undefined,
    ],
    [
      'kind + command together',
      'ask',
      [{ decision: 'allow', toolKind: 'execute', command: 'make' }],
      subj('other', [], 'make'),
      'ask',
      undefined,
    ],
    [
      'last match wins (deny after allow)',
      'ask',
      [
        { decision: 'allow', toolKind: 'edit' },
        { decision: 'deny', pathGlob: 'secret/**' },
      ],
      subj('edit', ['/ws/secret/a']),
      'deny',
      1,
    ],
    [
      'last match wins (allow after deny)',
      'ask',
      [
        { decision: 'deny', pathGlob: 'secret/**' },
        { decision: 'allow', toolKind: 'edit' },
      ],
      subj('edit', ['/ws/secret/a']),
      'allow',
      1,
    ],
    [
      'an ask rule beats auto mode',
      'auto',
      [{ decision: 'ask', toolKind: 'execute' }],
      subj('execute', [], 'ls'),
      'ask',
      0,
    ],
    ['a deny rule beats auto mode', 'auto', [{ decision: 'deny', toolKind: 'fetch' }], subj('fetch'), 'deny', 0],
    [
      'a rule beats accept-edits',
      'accept-edits',
      [{ decision: 'ask', pathGlob: 'package.json' }],
      subj('edit', ['/ws/package.json']),
      'ask',
      0,
    ],
    [
      'deny rules match any single command of a line',
      'auto',
      [{ decision: 'deny', command: 'rm *' }],
      subj('execute', [], 'cd x && rm y'),
      'deny',
      0,
    ],
    [
      'deny rules match inside substitutions',
      'auto',
      [{ decision: 'deny', command: 'curl *' }],
      subj('execute', [], 'echo $(curl x)'),
      'deny',
      0,
    ],
    ['empty rule matches everything', 'ask', [{ decision: 'allow' }], subj('other'), 'allow', 0],
  ];
  it.each(table)('%s', (_name, mode, rules, s, expected, ruleIndex) => {
    const r = evaluate(s, { mode, rules });
    expect(r.decision).toBe(expected);
    expect(r.rule).toBe(ruleIndex === undefined ? undefined : rules[ruleIndex]);
    expect(r.reason).not.toBe('');
  });
});

describe('evaluate — sensitive paths and dangerous commands always ask (deny still denies)', () => {
  const allowAll: PermissionRule = { decision: 'allow' };
  const table: [
    string,
    PermissionMode,
    PermissionRule[],
    PermissionSubject,
    Decision,
    'sensitive_path' | 'dangerous_command' | undefined,
  ][] = [
    ['.env edit in auto', 'auto', [], subj('edit', ['/ws/.env']), 'ask', 'sensitive_path'],
    [
      '.git write in accept-edits (inside roots)',
      'accept-edits',
      [],
      subj('edit', ['/ws/.git/config']),
      'ask',
      'sensitive_path',
    ],
    ['.ssh read over an allow rule', 'ask', [allowAll], subj('read', ['/home/u/.ssh/id_rsa']), 'ask', 'sensitive_path'],
    [
      'one sensitive path among several',
      'auto',
      [],
      subj('move', ['/ws/a', '/ws/.env.local']),
      'ask',
      'sensitive_path',
    ],
    ['a command naming a sensitive file', 'auto', [], subj('execute', [], 'cat .env'), 'ask', 'sensitive_path'],
    [
      'a command redirecting into a sensitive file',
      'auto',
      [],
      subj('execute', [], 'echo x >> ~/.ssh/authorized_keys'),
      'ask',
      'sensitive_path',
    ],
    [
      'a command passing a sensitive file as --opt=value',
      'auto',
      [],
      subj('execute', [], 'docker run --env-file=.env img'),
      'ask',
      'sensitive_path',
    ],
    [
      'a command excluding .git is not touching it',
      'auto',
      [],
      subj('execute', [], 'grep -r foo --exclude-dir=.git .'),
      'allow',
      undefined,
    ],
    [
      'sensitive path + deny rule → deny',
      'auto',
      [{ decision: 'deny', pathGlob: '**/.env' }],
      subj('edit', ['/ws/.env']),
      'deny',
      undefined,
    ],
    ['dangerous in auto', 'auto', [], subj('execute', [], 'rm -rf build'), 'ask', 'dangerous_command'],
    [
      'dangerous over a matching allow rule',
      'ask',
      [{ decision: 'allow', command: 'rm *' }],
      subj('execute', [], 'rm -rf build'),
      'ask',
      'dangerous_command',
    ],
    [
      'dangerous over a catch-all allow rule',
      'auto',
      [allowAll],
      subj('execute', [], 'git push --force'),
      'ask',
      'dangerous_command',
    ],
    [
      'dangerous + deny rule → deny',
      'auto',
      [{ decision: 'deny', command: 'git push *' }],
      subj('execute', [], 'git push -f origin main'),
      'deny',
      undefined,
    ],
    [
      'dangerous + deny rule earlier, allow later → ask',
      'auto',
      [{ decision: 'deny', toolKind: 'execute' }, allowAll],
      subj('execute', [], 'rm -rf x'),
      'ask',
      'dangerous_command',
    ],
    ['ordinary command in auto', 'auto', [], subj('execute', [], 'npm test'), 'allow', undefined],
    ['quoted rm -rf is only text', 'auto', [], subj('execute', [], 'echo "rm -rf /"'), 'allow', undefined],
  ];
  it.each(table)('%s', (_name, mode, rules, s, expected, forced) => {
    const r = evaluate(s, { mode, rules });
    expect(r.decision).toBe(expected);
    expect(r.forcedAsk).toBe(forced);
    if (forced) expect(r.rule).toBeUndefined();
  });

  it('says which rule a forced ask overrode', () => {
    const r = evaluate(subj('execute', [], 'sudo ls'), {
      mode: 'ask',
      rules: [{ id: 'r9', decision: 'allow', command: 'sudo *' }],
    });
    expect(r.reason).toMatch(/dangerous command/);
    expect(r.reason).toMatch(/r9/);
  });
});

describe('matching helpers', () => {
  it('isInsideRoots does not confuse prefixes', () => {
    expect(isInsideRoots('/ws/a', ['/ws'])).toBe(true);
    expect(isInsideRoots('/ws', ['/ws'])).toBe(true);
    expect(isInsideRoots('/ws2/a', ['/ws'])).toBe(false);
    expect(isInsideRoots('/', ['/ws'])).toBe(false);
    expect(isInsideRoots('/ws/..a/x', ['/ws'])).toBe(true);
    expect(isInsideRoots('/ws/a', [])).toBe(false);
  });

  it('an allow rule matches its command behind plain NAME=value words an agent adds, never behind risky or computed ones', () => {
    // claude-code-acp runs `CLAUDECODE=1 echo …` through terminal/create (seen in the real-agent matrix).
    expect(commandMatches('echo *', 'CLAUDECODE=1 echo matrix-ok')).toBe(true);
    expect(commandMatches('echo *', 'A=1 B=x/y echo hi')).toBe(true);
    expect(commandMatches('echo *', 'LD_PRELOAD=/tmp/x.so echo hi')).toBe(false);
    expect(commandMatches('echo *', 'A=1 PATH=/tmp echo hi')).toBe(false);
    expect(commandMatches('echo *', 'A=$(rm -rf ~) echo hi')).toBe(false);
    expect(commandMatches('echo *', 'A="x y" echo hi')).toBe(false);
    expect(commandMatches('echo *', 'CLAUDECODE=1 echo hi; rm -rf ~')).toBe(false);
    expect(
      evaluate({ toolKind: 'execute', command: 'CLAUDECODE=1 echo hi', paths: [], roots: ['/ws'] } as never, {
        mode: 'ask',
        rules: [{ decision: 'allow', command: 'echo *', source: 'config' }],
      }).decision,
    ).toBe('allow');
  });

  it('escaped commands match only themselves', () => {
    const p = escapeCommandPattern('ls *.ts ?');
    expect(commandMatches(p, 'ls *.ts ?')).toBe(true);
    expect(commandMatches(p, 'ls a.ts b')).toBe(false);
    const q = escapeCommandPattern('npm test && npm run build');
    expect(commandMatches(q, 'npm test && npm run build')).toBe(true);
    expect(commandMatches(q, 'npm test && npm run build && rm x')).toBe(false);
  });

  it('escaped paths match only themselves', () => {
    for (const p of ['/ws/a[1].ts', '/ws/{x}.ts', '/ws/a*b.ts', '/ws/(x)/y!.ts', '/ws/a,b.ts', '/ws/a+b|c$.ts']) {
      expect(globMatchesAll(escapeGlob(p), [p], ['/ws'])).toBe(true);
    }
    expect(globMatchesAll(escapeGlob('/ws/a*b.ts'), ['/ws/aXb.ts'], ['/ws'])).toBe(false);
    expect(globMatchesAll(escapeGlob('/ws/a?.ts'), ['/ws/ab.ts'], ['/ws'])).toBe(false);
  });

  it('an empty pattern or glob matches nothing', () => {
    expect(commandMatches('', 'ls')).toBe(false);
    expect(globMatchesAll('', ['/ws/a'], ['/ws'])).toBe(false);
  });
});

/** A subject as the broker hands it over: each path with the file it really reaches. */
function real(
  kind: string,
  pairs: [named: string, real: string][],
  extra: Partial<PermissionSubject> = {},
): PermissionSubject {
  return {
    ...subj(
      kind,
      pairs.map(([n]) => n),
    ),
    realPaths: pairs.map(([, r]) => r),
    realRoots: ROOTS,
    ...extra,
  };
}

describe('evaluate — real paths (symlinks resolved)', () => {
  const table: [string, PermissionMode, PermissionRule[], PermissionSubject, Decision, 'sensitive_path' | undefined][] =
    [
      [
        'accept-edits: a link inside pointing outside is outside',
        'accept-edits',
        [],
        real('edit', [['/ws/link/a.ts', '/etc/a.ts']]),
        'ask',
        undefined,
      ],
      [
        'accept-edits: a link inside pointing inside stays allowed',
        'accept-edits',
        [],
        real('edit', [['/ws/link/a.ts', '/ws/src/a.ts']]),
        'allow',
        undefined,
      ],
      [
        'a harmless name reaching .env is sensitive',
        'auto',
        [],
        real('edit', [['/ws/notes', '/ws/.env']]),
        'ask',
        'sensitive_path',
      ],
      [
        'a harmless name reaching .git is sensitive',
        'accept-edits',
        [],
        real('edit', [['/ws/cfg', '/ws/.git/config']]),
        'ask',
        'sensitive_path',
      ],
      [
        'an allow glob must hold for the file reached',
        'ask',
        [{ decision: 'allow', pathGlob: 'src/**' }],
        real('edit', [['/ws/src/l', '/ws/secret/k']]),
        'ask',
        undefined,
      ],
      [
        'a deny glob matches the file reached',
        'auto',
        [{ decision: 'deny', pathGlob: 'secret/**' }],
        real('edit', [['/ws/src/l', '/ws/secret/k']]),
        'deny',
        undefined,
      ],
      [
        'a deny glob matches the name too',
        'auto',
        [{ decision: 'deny', pathGlob: 'secret/**' }],
        real('edit', [['/ws/secret/l', '/ws/src/k']]),
        'deny',
        undefined,
      ],
    ];
  it.each(table)('%s', (_name, mode, rules, s, expected, forced) => {
    const r = evaluate(s, { mode, rules });
    expect(r.decision).toBe(expected);
    expect(r.forcedAsk).toBe(forced);
  });

  it('names the file really reached', () => {
    expect(
      evaluate(real('edit', [['/ws/link/a.ts', '/etc/a.ts']]), { mode: 'accept-edits', rules: [] }).reason,
    ).toMatch(/really \/etc\/a\.ts/);
  });
});

describe('evaluate — effects Talaria performs (fs/*, terminal/create)', () => {
  const read = (p: string, r = p) => real('read', [[p, r]], { effect: 'fs.read' });
  const write = (p: string, r = p) => real('edit', [[p, r]], { effect: 'fs.write' });
  const term = (command: string) => ({
    ...subj('execute', ['/ws'], command),
    realPaths: ['/ws'],
    realRoots: ROOTS,
    effect: 'terminal.create' as const,
  });
  const table: [
    string,
    PermissionMode,
    PermissionRule[],
    PermissionSubject,
    Decision,
    'sensitive_path' | 'dangerous_command' | undefined,
  ][] = [
    ['a read inside the roots is allowed in ask mode', 'ask', [], read('/ws/a.ts'), 'allow', undefined],
    ['a read of .env always asks', 'auto', [], read('/ws/.env'), 'ask', 'sensitive_path'],
    ['a read through a link to .env always asks', 'ask', [], read('/ws/notes', '/ws/.env'), 'ask', 'sensitive_path'],
    ['a read reaching outside asks', 'auto', [], read('/ws/l', '/etc/passwd'), 'ask', undefined],
    [
      'a deny rule denies a read',
      'ask',
      [{ decision: 'deny', toolKind: 'read', pathGlob: 'private/**' }],
      read('/ws/private/x'),
      'deny',
      undefined,
    ],
    [
      'an ask rule makes a read ask',
      'ask',
      [{ decision: 'ask', toolKind: 'read' }],
      read('/ws/a.ts'),
      'ask',
      undefined,
    ],
    ['a write asks in ask mode', 'ask', [], write('/ws/a.ts'), 'ask', undefined],
    ['a write is allowed by accept-edits inside the roots', 'accept-edits', [], write('/ws/a.ts'), 'allow', undefined],
    ['a write of .envrc asks even in auto', 'auto', [], write('/ws/.envrc'), 'ask', 'sensitive_path'],
    [
      'an edit allow rule applies to writes',
      'ask',
      [{ decision: 'allow', toolKind: 'edit', pathGlob: 'src/**' }],
      write('/ws/src/a.ts'),
      'allow',
      undefined,
    ],
    ['a terminal asks in ask mode', 'ask', [], term('npm test'), 'ask', undefined],
    ['a terminal asks in accept-edits', 'accept-edits', [], term('npm test'), 'ask', undefined],
    ['a terminal is allowed in auto', 'auto', [], term('npm test'), 'allow', undefined],
    ['a dangerous terminal asks in auto', 'auto', [], term('rm -rf build'), 'ask', 'dangerous_command'],
    [
      'a command rule applies to terminals',
      'ask',
      [{ decision: 'allow', command: 'npm test' }],
      term('npm test'),
      'allow',
      undefined,
    ],
    [
      'a deny command rule denies a terminal',
      'auto',
      [{ decision: 'deny', command: 'curl *' }],
      term('ls && curl x'),
      'deny',
      undefined,
    ],
  ];
  it.each(table)('%s', (_name, mode, rules, s, expected, forced) => {
    const r = evaluate(s, { mode, rules });
    expect(r.decision).toBe(expected);
    expect(r.forcedAsk).toBe(forced);
  });
});
