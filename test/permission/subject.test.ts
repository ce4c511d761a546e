import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, it, expect } from 'vitest';
import { commandFromTitle, describeRequest } from '../../src/permission/subject.js';

const fixture = fileURLToPath(new URL('../fixtures/hermes-0.18.2/tools.ndjson', import.meta.url));
const hermesRequests = readFileSync(fixture, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as { msg: { method?: string; params?: unknown } })
  .filter((l) => l.msg.method === 'session/request_permission')
  .map((l) => l.msg.params as Record<string, unknown>);

const ROOTS = ['/ws'];
const HOME = { homeDir: '/home/u' };

describe('describeRequest — recorded Hermes 0.18.2 requests', () => {
  it('finds both permission requests in the fixture', () => {
    expect(hermesRequests).toHaveLength(2);
  });

  it('edit approval: kind, title, one path from diff + rawInput.arguments, no command', () => {
    const s = describeRequest(hermesRequests[0], ['/workspace'], undefined, HOME);
    expect(s).toEqual({
      sessionId: '8ca8c0bc-ed57-41e3-b563-df71c729476a',
      toolCallId: 'edit-approval-1',
      toolKind: 'edit',
      title: 'Approve edit: /workspace/out.txt',
      paths: ['/workspace/out.txt'],
      roots: ['/workspace'],
    });
  });

  it('dangerous-command check: command from rawInput, no paths', () => {
    const s = describeRequest(hermesRequests[1], ['/workspace'], undefined, HOME);
    expect(s.toolCallId).toBe('perm-check-1');
    expect(s.toolKind).toBe('execute');
    expect(s.command).toBe('rm -rf /workspace/junkdir');
    expect(s.paths).toEqual([]);
  });
});

interface Row {
  name: string;
  toolCall: Record<string, unknown>;
  known?: Parameters<typeof describeRequest>[2];
  paths: string[];
  command?: string;
  toolKind?: string;
  title?: string;
}

const rows: Row[] = [
  {
    name: 'claude Bash',
    toolCall: {
      toolCallId: 'toolu_1',
      title: '`npm test`',
      kind: 'execute',
      rawInput: { command: 'npm test', description: 'Run tests' },
    },
    paths: [],
    command: 'npm test',
    toolKind: 'execute',
    title: '`npm test`',
  },
  {
    name: 'claude Edit with locations + diff + file_path',
    toolCall: {
      toolCallId: 'toolu_2',
      title: 'Edit `/ws/src/a.ts`',
      kind: 'edit',
      locations: [{ path: '/ws/src/a.ts', line: 3 }],
      content: [{ type: 'diff', path: '/ws/src/a.ts', oldText: 'a', newText: 'b' }],
      rawInput: { file_path: '/ws/src/a.ts', old_string: 'a', new_string: 'b' },
    },
    paths: ['/ws/src/a.ts'],
    toolKind: 'edit',
    title: 'Edit `/ws/src/a.ts`',
  },
  {
    name: 'claude id-only request completed from the known tool call',
    toolCall: { toolCallId: 'toolu_3', rawInput: {} },
    known: { title: '`git push`', toolKind: 'execute', locations: [], rawInput: {}, content: [] },
    paths: [],
    command: 'git push',
    toolKind: 'execute',
    title: '`git push`',
  },
  {
    name: 'codex argv wrapped in bash -lc, with cwd',
    toolCall: {
      toolCallId: 'call_1',
      kind: 'execute',
      status: 'pending',
      title: 'npm test',
      rawInput: { command: ['bash', '-lc', 'npm test'], cwd: '/ws' },
    },
    paths: ['/ws'],
    command: 'npm test',
    toolKind: 'execute',
    title: 'npm test',
  },
  {
    name: 'codex plain argv is joined with quoting',
    toolCall: { toolCallId: 'call_2', kind: 'execute', rawInput: { command: ['git', 'commit', '-m', 'a b'] } },
    paths: [],
    command: "git commit -m 'a b'",
    toolKind: 'execute',
  },
  {
    name: 'gemini shell: the title is the command',
    toolCall: {
      toolCallId: 'run_shell_command-1',
      status: 'pending',
      title: 'rm -rf build (clean up)',
      content: [],
      locations: [],
      kind: 'execute',
    },
    paths: [],
    command: 'rm -rf build (clean up)',
    toolKind: 'execute',
    title: 'rm -rf build (clean up)',
  },
  {
    name: 'gemini write_file: locations + diff, relative path resolved against the first root',
    toolCall: {
      toolCallId: 'write_file-2',
      title: 'Writing to src/b.ts',
      kind: 'edit',
      locations: [{ path: 'src/b.ts' }],
      content: [{ type: 'diff', path: '/ws/src/b.ts', oldText: null, newText: 'x' }],
    },
    paths: ['/ws/src/b.ts'],
    toolKind: 'edit',
    title: 'Writing to src/b.ts',
  },
  {
    name: 'qwen edit with absolute_path-like keys',
    toolCall: {
      toolCallId: 'edit-3',
      title: 'Edit a.ts',
      kind: 'edit',
      rawInput: { absolute_path: '/ws/a.ts', filePath: './b.ts' },
    },
    paths: ['/ws/a.ts', '/ws/b.ts'],
    toolKind: 'edit',
    title: 'Edit a.ts',
  },
  {
    name: 'move: source + destination, paths[] list, notebook_path',
    toolCall: {
      toolCallId: 'm1',
      kind: 'move',
      rawInput: { source: 'a.txt', destination: '../out/a.txt', paths: ['x', 'y'], notebook_path: '/ws/n.ipynb' },
    },
    paths: ['/ws/n.ipynb', '/ws/a.txt', '/out/a.txt', '/ws/x', '/ws/y'],
    toolKind: 'move',
  },
  {
    name: '~ expansion and file:// URIs; URLs and multi-line values are not paths',
    toolCall: {
      toolCallId: 'r1',
      kind: 'read',
      rawInput: {
        path: '~/.ssh/config',
        target: 'file:///ws/x%20y.txt',
        source: 'https://example.com/a',
        src: 'line1\nline2',
      },
    },
    paths: ['/home/u/.ssh/config', '/ws/x y.txt'],
    toolKind: 'read',
  },
  {
    name: 'command + args array, title prefix ignored when rawInput has the command',
    toolCall: {
      toolCallId: 't1',
      title: 'terminal: something else',
      rawInput: { command: 'git', args: ['commit', '-m', 'a b'] },
    },
    paths: [],
    command: "git commit -m 'a b'",
    title: 'terminal: something else',
  },
  {
    name: 'Hermes-style nested rawInput {tool, arguments} with nothing else',
    toolCall: {
      toolCallId: 'h1',
      kind: 'edit',
      rawInput: { tool: 'patch', arguments: { path: 'src/c.ts', mode: 'replace' } },
    },
    paths: ['/ws/src/c.ts'],
    toolKind: 'edit',
  },
  {
    name: 'nested command (rawInput.input.command)',
    toolCall: { toolCallId: 'h2', kind: 'execute', rawInput: { tool: 'terminal', input: { command: 'make test' } } },
    paths: [],
    command: 'make test',
    toolKind: 'execute',
  },
  {
    name: 'codex apply_patch: paths are the keys of rawInput.changes',
    toolCall: {
      toolCallId: 'c3',
      kind: 'edit',
      rawInput: { changes: { '/ws/a.ts': { update: {} }, 'src/b.ts': { add: {} }, notapath: {} } },
    },
    paths: ['/ws/a.ts', '/ws/src/b.ts'],
    toolKind: 'edit',
  },
  {
    name: 'cmd / commandLine keys',
    toolCall: { toolCallId: 't2', kind: 'execute', rawInput: { commandLine: 'make all' } },
    paths: [],
    command: 'make all',
    toolKind: 'execute',
  },
  {
    name: 'title "terminal: …" when nothing else',
    toolCall: { toolCallId: 't3', title: 'terminal: rm -rf x' },
    paths: [],
    command: 'rm -rf x',
    title: 'terminal: rm -rf x',
  },
  {
    name: 'request fields win over known ones; paths are the union',
    toolCall: { toolCallId: 'k1', title: 'Approve edit', kind: 'edit', locations: [{ path: '/ws/a.ts' }] },
    known: { title: 'Old title', toolKind: 'read', locations: [{ path: '/ws/b.ts' }] },
    paths: ['/ws/a.ts', '/ws/b.ts'],
    toolKind: 'edit',
    title: 'Approve edit',
  },
];

describe('describeRequest — agent shapes', () => {
  it.each(rows)('$name', (row) => {
    const s = describeRequest({ sessionId: 's1', toolCall: row.toolCall, options: [] }, ROOTS, row.known, HOME);
    expect(s.sessionId).toBe('s1');
    expect(s.toolCallId).toBe(row.toolCall.toolCallId);
    // Order follows the key list, not meaning: compare as sets (no duplicates either way).
    expect([...s.paths].sort()).toEqual([...row.paths].sort());
    expect(new Set(s.paths).size).toBe(s.paths.length);
    expect(s.command).toBe(row.command);
    expect(s.toolKind).toBe(row.toolKind);
    expect(s.title).toBe(row.title);
    expect(s.roots).toEqual(ROOTS);
  });

  it('never throws on junk', () => {
    for (const junk of [
      null,
      undefined,
      42,
      'x',
      [],
      { toolCall: 'x' },
      { toolCall: { rawInput: 5, locations: 'x', content: {} } },
    ]) {
      const s = describeRequest(junk, ROOTS, undefined, HOME);
      expect(s).toEqual({ sessionId: '', toolCallId: '', paths: [], roots: ROOTS });
    }
  });

  it('keeps relative paths relative when there is no root', () => {
    const s = describeRequest({ toolCall: { toolCallId: 'x', rawInput: { path: 'a/../b.txt' } } }, [], undefined, HOME);
    expect(s.paths).toEqual(['b.txt']);
  });
});

describe('commandFromTitle', () => {
  it.each([
    ['`npm test`', undefined, undefined, 'npm test'],
    ['`echo \\`date\\``', 'execute', undefined, 'echo `date`'],
    ['Run `make build`', 'execute', undefined, 'make build'],
    ['terminal: rm -rf x', undefined, undefined, 'rm -rf x'],
    ['Bash: ls -la', 'execute', undefined, 'ls -la'],
    ['delete in root path: rm -rf /w/j', undefined, 'delete in root path', 'rm -rf /w/j'],
    ['npm test', 'execute', undefined, 'npm test'],
    ['Read file', 'read', undefined, undefined],
    ['Edit `a.ts`', 'edit', undefined, undefined],
    ['`a.ts`', 'read', undefined, undefined],
    ['Run `make build`', undefined, undefined, undefined],
  ] as const)('%j (kind %s) → %j', (title, kind, description, expected) => {
    expect(commandFromTitle(title, kind, description)).toBe(expected);
  });
});
