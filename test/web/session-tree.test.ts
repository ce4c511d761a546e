import { describe, expect, it } from 'vitest';
import type { SessionSummaryInfo } from '../../src/server/contract/index.js';
import { sessionTrees, type SessionNode } from '../../web/src/state/session-tree.js';

const row = (id: string, o: Partial<SessionSummaryInfo> = {}): SessionSummaryInfo =>
  ({
    id,
    provider: 'demo',
    cwd: '/p',
    archived: false,
    stored: true,
    live: false,
    state: 'stored',
    needsAttention: false,
    ...o,
  }) as SessionSummaryInfo;
const label = (id: string) => (id === 'hermes' ? 'Hermes Agent' : id);
const flat = (ns: SessionNode[], depth = 0): string[] =>
  ns.flatMap((n) => [
    `${'  '.repeat(depth)}${n.s.id}${n.label ? ` [${n.label}]` : ''}${n.tag ? ` #${n.tag}` : ''}`,
    ...flat(n.children, depth + 1),
  ]);

describe('sessionTrees (the sidebar)', () => {
  it('nests rewinds, continuations and forks under what they came from, labelled; a tree sits by its latest activity', () => {
    const rows = [
      row('other', { title: 'other', updatedAt: 50 }),
      row('root', { title: 'root', updatedAt: 10 }),
      row('rw', { title: 'root (rewind)', updatedAt: 60, branch: { parentId: 'root', kind: 'rewind', atMessage: 3 } }),
      row('hm', {
        title: 'root (in Hermes Agent)',
        provider: 'hermes',
        updatedAt: 20,
        branch: { parentId: 'root', kind: 'continue' },
      }),
      row('fk', { title: 'root (rewind) (fork)', updatedAt: 30, branch: { parentId: 'rw', kind: 'fork' } }),
      row('orphan', { title: 'x (rewind)', updatedAt: 5, branch: { parentId: 'archived-one', kind: 'rewind' } }),
    ];
    expect(flat(sessionTrees(rows, label))).toEqual([
      'root',
      '  rw [rewound at message 3]',
      '    fk [fork]',
      '  hm [in Hermes Agent]',
      'other',
      'orphan [rewound]',
    ]);
  });

  it('rows that read the same (title and label) get a short id; others none', () => {
    const rows = [
      row('aaaaaa-1', { title: 'hello' }),
      row('bbbbbb-2', { title: 'hello' }),
      row('r1xxxx', { title: 'hello (rewind)', branch: { parentId: 'aaaaaa-1', kind: 'rewind', atMessage: 2 } }),
      row('r2yyyy', { title: 'hello (rewind)', branch: { parentId: 'aaaaaa-1', kind: 'rewind', atMessage: 2 } }),
      row('r3zzzz', { title: 'hello (rewind)', branch: { parentId: 'aaaaaa-1', kind: 'rewind', atMessage: 1 } }),
    ];
    expect(flat(sessionTrees(rows, label))).toEqual([
      'aaaaaa-1 #aaaaaa',
      '  r1xxxx [rewound at message 2] #r1xxxx',
      '  r2yyyy [rewound at message 2] #r2yyyy',
      '  r3zzzz [rewound at message 1]',
      'bbbbbb-2 #bbbbbb',
    ]);
  });

  it('a parent loop (damaged data) stays flat instead of vanishing', () => {
    const rows = [
      row('a', { branch: { parentId: 'b', kind: 'fork' } }),
      row('b', { branch: { parentId: 'a', kind: 'fork' } }),
    ];
    expect(flat(sessionTrees(rows, label)).map((l) => l.trim().split(' ')[0])).toEqual(
      expect.arrayContaining(['a', 'b']),
    );
  });
});
