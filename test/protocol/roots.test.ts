import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RequestError } from '../../src/protocol/wire-error.js';
import { isInside } from '../../src/os/real-path.js';
import { resolveInsideRoots } from '../../src/protocol/roots.js';

// Layout (all real, under one temp dir):
//   root/            a root            root/sub/file.txt, root/inner -> root/sub (inside link)
//   root/out-file -> outside/secret.txt       root/out-dir -> outside/
//   root/dangling -> outside/ghost.txt        root/loop-a <-> root/loop-b
//   root-evil/x.txt  (shares root's prefix)   extra/  a second root
//   link-root -> root  (a root that is itself a symlink)
let base: string;
let root: string;
let outside: string;
let extra: string;
let linkRoot: string;

beforeAll(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'talaria-roots-')));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  extra = path.join(base, 'extra');
  linkRoot = path.join(base, 'link-root');
  mkdirSync(path.join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  mkdirSync(extra);
  mkdirSync(path.join(base, 'root-evil'));
  writeFileSync(path.join(root, 'sub', 'file.txt'), 'x');
  writeFileSync(path.join(outside, 'secret.txt'), 's');
  writeFileSync(path.join(base, 'root-evil', 'x.txt'), 'e');
  symlinkSync(path.join(root, 'sub'), path.join(root, 'inner'));
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  symlinkSync(outside, path.join(root, 'out-dir'));
  symlinkSync(path.join(outside, 'ghost.txt'), path.join(root, 'dangling'));
  symlinkSync('loop-b', path.join(root, 'loop-a'));
  symlinkSync('loop-a', path.join(root, 'loop-b'));
  symlinkSync('../outside/ghost-rel.txt', path.join(root, 'dangling-rel'));
  symlinkSync(root, linkRoot);
});

afterAll(() => rmSync(base, { recursive: true, force: true }));

describe('resolveInsideRoots: accepted', () => {
  const cases: [string, () => string[], () => string, () => string][] = [
    ['existing file', () => [root], () => path.join(root, 'sub/file.txt'), () => path.join(root, 'sub/file.txt')],
    ['the root itself', () => [root], () => root, () => root],
    ['missing nested file', () => [root], () => path.join(root, 'new/a/b.txt'), () => path.join(root, 'new/a/b.txt')],
    [
      '`..` that stays inside',
      () => [root],
      () => path.join(root, 'sub/../sub/file.txt'),
      () => path.join(root, 'sub/file.txt'),
    ],
    [
      'link inside pointing inside',
      () => [root],
      () => path.join(root, 'inner/file.txt'),
      () => path.join(root, 'sub/file.txt'),
    ],
    [
      'root is a symlink (path via link)',
      () => [linkRoot],
      () => path.join(linkRoot, 'sub/file.txt'),
      () => path.join(root, 'sub/file.txt'),
    ],
    [
      'root is a symlink (path via real dir)',
      () => [linkRoot],
      () => path.join(root, 'new.txt'),
      () => path.join(root, 'new.txt'),
    ],
    ['second root', () => [root, extra], () => path.join(extra, 'e.txt'), () => path.join(extra, 'e.txt')],
    ['name starting with ..', () => [root], () => path.join(root, '..hidden'), () => path.join(root, '..hidden')],
  ];
  it.each(cases)('%s', async (_name, roots, requested, expected) => {
    await expect(resolveInsideRoots(roots(), requested())).resolves.toBe(expected());
  });
});

describe('resolveInsideRoots: rejected', () => {
  const cases: [string, () => string[], () => string, string][] = [
    ['`..` escape', () => [root], () => `${root}/sub/../../outside/secret.txt`, 'outside_roots'],
    ['link to a file outside', () => [root], () => path.join(root, 'out-file'), 'outside_roots'],
    [
      'symlinked parent outside (existing file)',
      () => [root],
      () => path.join(root, 'out-dir/secret.txt'),
      'outside_roots',
    ],
    ['symlinked parent outside (new file)', () => [root], () => path.join(root, 'out-dir/new/n.txt'), 'outside_roots'],
    ['dangling link to outside', () => [root], () => path.join(root, 'dangling'), 'outside_roots'],
    ['relative dangling link to outside', () => [root], () => path.join(root, 'dangling-rel'), 'outside_roots'],
    ['below a dangling link', () => [root], () => path.join(root, 'dangling/x.txt'), 'outside_roots'],
    ['sibling sharing the prefix', () => [root], () => path.join(base, 'root-evil/x.txt'), 'outside_roots'],
    ['no roots at all', () => [], () => path.join(root, 'sub/file.txt'), 'outside_roots'],
    ['only the other root', () => [extra], () => path.join(root, 'sub/file.txt'), 'outside_roots'],
    ['relative path', () => [root], () => 'sub/file.txt', 'not_absolute'],
    ['dot-relative path', () => [root], () => './sub/file.txt', 'not_absolute'],
    ['empty path', () => [root], () => '', 'invalid_path'],
    ['NUL byte', () => [root], () => `${root}/a\0b`, 'invalid_path'],
    ['symlink loop', () => [root], () => path.join(root, 'loop-a'), 'symlink_loop'],
  ];
  it.each(cases)('%s', async (_name, roots, requested, reason) => {
    const err = await resolveInsideRoots(roots(), requested(), { forWrite: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RequestError);
    expect((err as RequestError).code).toBe(-32602);
    expect((err as RequestError).data).toEqual({ path: requested(), reason });
  });

  it('says what was refused in the message', async () => {
    const p = path.join(root, 'out-file');
    await expect(resolveInsideRoots([root], p, { forWrite: true })).rejects.toThrow(/write .*outside/);
    await expect(resolveInsideRoots([root], p)).rejects.toThrow(/outside the session's allowed directories/);
  });
});

describe('isInside', () => {
  it.each([
    ['/a/b', '/a/b', true],
    ['/a/b', '/a/b/c', true],
    ['/a/b', '/a/bc', false],
    ['/a/b', '/a', false],
    ['/', '/anything', true],
    ['/a/b', '/a/b/..c', true],
  ])('isInside(%s, %s) = %s', (r, c, expected) => {
    expect(isInside(r, c)).toBe(expected);
  });
});
