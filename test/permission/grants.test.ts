import { describe, expect, it } from 'vitest';
import { Grants } from '../../src/permission/grants.js';
import type { PermissionSubject } from '../../src/permission/types.js';

const ask = (toolCallId: string, paths: string[], command?: string, realPaths?: string[]): PermissionSubject => ({
  sessionId: 's',
  toolCallId,
  paths,
  roots: ['/ws'],
  ...(command ? { command } : {}),
  ...(realPaths ? { realPaths } : {}),
});
const write = (path: string, real = path): PermissionSubject => ({
  ...ask('fx', [path]),
  realPaths: [real],
  effect: 'fs.write',
});
const run = (command: string): PermissionSubject => ({ ...ask('fx', ['/ws'], command), effect: 'terminal.create' });
const open = () => true;

describe('Grants', () => {
  it('covers the same file (as resolved) while the tool call is open in the same turn', () => {
    const g = new Grants();
    g.add('s', 't1', 'k1', ask('tc', ['/ws/link'], undefined, ['/ws/real.txt']));
    expect(g.covering('s', 't1', write('/ws/link', '/ws/real.txt'), open)?.requestKey).toBe('k1');
    expect(g.covering('s', 't1', write('/ws/other', '/ws/other'), open)).toBeUndefined();
    expect(g.covering('s', 't1', write('/ws/link', '/ws/real.txt'), () => false)).toBeUndefined();
    expect(g.covering('s', 't2', write('/ws/link', '/ws/real.txt'), open)).toBeUndefined();
    expect(g.covering('other', 't1', write('/ws/link', '/ws/real.txt'), open)).toBeUndefined();
    expect(g.covering('s', 't1', write('/ws/link', '/ws/real.txt'), undefined)).toBeUndefined();
  });

  it('covers exactly the same command line, nothing more', () => {
    const g = new Grants();
    g.add('s', 't1', 'k1', ask('tc', [], '  npm test '));
    expect(g.covering('s', 't1', run('npm test'), open)).toBeDefined();
    expect(g.covering('s', 't1', run('npm test && curl x | sh'), open)).toBeUndefined();
  });

  it("compares commands as the policy does: the agent's plain NAME=value words in front do not count, risky ones do", () => {
    const g = new Grants();
    g.add('s', 't1', 'k1', ask('tc', [], 'echo hi'));
    // claude-code-acp's terminal/create carries env CLAUDECODE=1, judged as `CLAUDECODE=1 echo hi`.
    expect(g.covering('s', 't1', run('CLAUDECODE=1 echo hi'), open)?.requestKey).toBe('k1');
    expect(g.covering('s', 't1', run("CI=1 API_KEY='[redacted]' echo hi"), open)?.requestKey).toBe('k1');
    for (const risky of [
      'LD_PRELOAD=/tmp/x.so echo hi',
      'CLAUDECODE=1 PATH=/tmp echo hi',
      'NODE_OPTIONS=--require=/tmp/x.js echo hi',
      'A="$(id)" echo hi',
    ]) {
      expect(g.covering('s', 't1', run(risky), open), risky).toBeUndefined();
    }
    const h = new Grants();
    h.add('s', 't1', 'k2', ask('tc', [], 'CLAUDECODE=1 echo hi'));
    expect(h.covering('s', 't1', run('echo hi'), open)?.requestKey).toBe('k2');
  });

  it('grants nothing without a turn, a tool call id, or anything to cover', () => {
    const g = new Grants();
    g.add('s', undefined, 'k1', ask('tc', ['/ws/a']));
    g.add('s', 't1', 'k2', ask('', ['/ws/a']));
    g.add('s', 't1', 'k3', ask('tc', []));
    expect(g.covering('s', 't1', write('/ws/a'), open)).toBeUndefined();
  });

  it("keeps only the current turn's grants, and forgets on cancel", () => {
    const g = new Grants();
    g.add('s', 't1', 'k1', ask('tc1', ['/ws/a']));
    g.add('s', 't2', 'k2', ask('tc2', ['/ws/b']));
    expect(g.covering('s', 't1', write('/ws/a'), open)).toBeUndefined();
    expect(g.covering('s', 't2', write('/ws/b'), open)).toBeDefined();
    g.forgetTurn('t2');
    expect(g.covering('s', 't2', write('/ws/b'), open)).toBeUndefined();
    g.add('s', 't3', 'k3', ask('tc3', ['/ws/c']));
    g.forgetSession('s');
    expect(g.covering('s', 't3', write('/ws/c'), open)).toBeUndefined();
  });

  it('a tool-call check that throws counts as closed', () => {
    const g = new Grants();
    g.add('s', 't1', 'k1', ask('tc', ['/ws/a']));
    expect(
      g.covering('s', 't1', write('/ws/a'), () => {
        throw new Error('gone');
      }),
    ).toBeUndefined();
  });
});
