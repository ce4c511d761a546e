import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsHandlers, type FileWriteEvent, type FsHandlers } from '../../src/protocol/client-fs.js';
import type { ClientEffect } from '../../src/protocol/effect.js';
import { RPC } from '../../src/protocol/errors.js';
import { RequestError } from '../../src/protocol/wire-error.js';

let base: string;
let root: string;
let extra: string;
let outside: string;
let writes: FileWriteEvent[];
let fs: FsHandlers;
const S = 'sess-1';

beforeEach(() => {
  base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'talaria-fs-')));
  root = path.join(base, 'root');
  extra = path.join(base, 'extra');
  outside = path.join(base, 'outside');
  for (const d of [root, extra, outside]) mkdirSync(d);
  writeFileSync(path.join(root, 'lines.txt'), 'one\ntwo\nthree\nfour\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'top secret');
  writes = [];
  fs = createFsHandlers({
    rootsFor: (id) => (id === S ? [root, extra] : undefined),
    onWrite: (e) => void writes.push(e),
  });
});

afterEach(() => rmSync(base, { recursive: true, force: true }));

async function failure(p: Promise<unknown>): Promise<RequestError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(RequestError);
  return e as RequestError;
}

describe('fs/read_text_file', () => {
  it.each([
    ['whole file', {}, 'one\ntwo\nthree\nfour\n'],
    ['from line 2', { line: 2 }, 'two\nthree\nfour\n'],
    ['limit 2', { limit: 2 }, 'one\ntwo\n'],
    ['line 2 limit 2', { line: 2, limit: 2 }, 'two\nthree\n'],
    ['line+limit past end', { line: 4, limit: 10 }, 'four\n'],
    ['line past end', { line: 9 }, ''],
    ['limit 0', { limit: 0 }, ''],
    ['nulls mean absent', { line: null, limit: null }, 'one\ntwo\nthree\nfour\n'],
  ])('%s', async (_name, range, expected) => {
    const r = await fs.readTextFile({ sessionId: S, path: path.join(root, 'lines.txt'), ...range });
    expect(r).toEqual({ content: expected });
  });

  it('keeps CRLF and a last line without newline', async () => {
    writeFileSync(path.join(root, 'crlf.txt'), 'a\r\nb\r\nc');
    const r = await fs.readTextFile({ sessionId: S, path: path.join(root, 'crlf.txt'), line: 2 });
    expect(r.content).toBe('b\r\nc');
  });

  it('returns binary content as utf8 text', async () => {
    writeFileSync(path.join(root, 'bin'), Buffer.from([0x68, 0x00, 0xff, 0x69]));
    const r = await fs.readTextFile({ sessionId: S, path: path.join(root, 'bin') });
    expect(r.content).toBe('h\u0000\ufffdi');
  });

  it('reads from an additional directory (second root)', async () => {
    writeFileSync(path.join(extra, 'e.txt'), 'extra');
    const r = await fs.readTextFile({ sessionId: S, path: path.join(extra, 'e.txt') });
    expect(r.content).toBe('extra');
  });

  it('missing file -> -32002 with the path', async () => {
    const p = path.join(root, 'nope.txt');
    const e = await failure(fs.readTextFile({ sessionId: S, path: p }));
    expect(e.code).toBe(-32002);
    expect(e.data).toEqual({ path: p });
  });

  it('a directory -> -32602', async () => {
    const e = await failure(fs.readTextFile({ sessionId: S, path: root }));
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ reason: 'is_directory' });
  });

  it('outside via `..` -> -32602 outside_roots', async () => {
    const p = `${root}/../outside/secret.txt`;
    const e = await failure(fs.readTextFile({ sessionId: S, path: p }));
    expect(e.code).toBe(-32602);
    expect(e.data).toEqual({ path: p, reason: 'outside_roots' });
  });

  it('through a symlink that escapes -> -32602 outside_roots', async () => {
    symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'innocent.txt'));
    const e = await failure(fs.readTextFile({ sessionId: S, path: path.join(root, 'innocent.txt') }));
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ reason: 'outside_roots' });
  });

  it('relative path -> -32602', async () => {
    const e = await failure(fs.readTextFile({ sessionId: S, path: 'lines.txt' }));
    expect(e.code).toBe(-32602);
  });

  it('unknown session -> -32002', async () => {
    const e = await failure(fs.readTextFile({ sessionId: 'other', path: path.join(root, 'lines.txt') }));
    expect(e.code).toBe(-32002);
    expect(e.data).toEqual({ sessionId: 'other' });
  });

  it.each([
    ['negative line', { line: -1 }],
    ['fractional limit', { limit: 1.5 }],
  ])('bad range (%s) -> -32602', async (_n, range) => {
    const e = await failure(fs.readTextFile({ sessionId: S, path: path.join(root, 'lines.txt'), ...range }));
    expect(e.code).toBe(-32602);
  });

  it('enforces the max read size, but a small range of a big file still reads', async () => {
    const small = createFsHandlers({ rootsFor: () => [root], maxReadBytes: 8 });
    const p = path.join(root, 'lines.txt'); // 19 bytes
    const e = await failure(small.readTextFile({ sessionId: S, path: p }));
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ reason: 'too_large', maxBytes: 8 });
    expect(e.message).toMatch(/too large.*line\/limit/);
    await expect(small.readTextFile({ sessionId: S, path: p, line: 3, limit: 1 })).resolves.toEqual({
      content: 'three\n',
    });
  });

  it('streams across chunk boundaries (a large file read by range)', async () => {
    const lines = Array.from({ length: 30_000 }, (_, i) => `line ${i + 1}`);
    writeFileSync(path.join(root, 'big.txt'), lines.join('\n') + '\n');
    const r = await fs.readTextFile({ sessionId: S, path: path.join(root, 'big.txt'), line: 20_000, limit: 3 });
    expect(r.content).toBe('line 20000\nline 20001\nline 20002\n');
  });
});

describe('fs/write_text_file', () => {
  it('creates a new file in a new subdirectory and reports it', async () => {
    const p = path.join(root, 'new/deeper/file.txt');
    await expect(fs.writeTextFile({ sessionId: S, path: p, content: 'héllo' })).resolves.toEqual({});
    expect(readFileSync(p, 'utf8')).toBe('héllo');
    expect(writes).toEqual([{ sessionId: S, path: p, oldText: null, newText: 'héllo', existed: false }]);
  });

  it('replaces atomically (new inode, no temp left), keeps the mode, reports the old text', async () => {
    const p = path.join(root, 'lines.txt');
    chmodSync(p, 0o640);
    const before = statSync(p);
    await fs.writeTextFile({ sessionId: S, path: p, content: 'new' });
    const after = statSync(p);
    expect(readFileSync(p, 'utf8')).toBe('new');
    expect(after.mode & 0o7777).toBe(0o640);
    expect(after.ino).not.toBe(before.ino); // written beside and renamed over, not in place
    expect(readdirSync(root).sort()).toEqual(['lines.txt']);
    expect(writes).toEqual([
      { sessionId: S, path: p, oldText: 'one\ntwo\nthree\nfour\n', newText: 'new', existed: true },
    ]);
  });

  it('keeps a mode the umask would filter (group-writable script)', async () => {
    const p = path.join(root, 'run.sh');
    writeFileSync(p, 'echo');
    chmodSync(p, 0o775);
    const saved = process.umask(0o022);
    try {
      await fs.writeTextFile({ sessionId: S, path: p, content: 'echo hi' });
    } finally {
      process.umask(saved);
    }
    expect(statSync(p).mode & 0o7777).toBe(0o775);
  });

  it('writes to an additional directory (second root)', async () => {
    const p = path.join(extra, 'x.txt');
    await fs.writeTextFile({ sessionId: S, path: p, content: 'x' });
    expect(readFileSync(p, 'utf8')).toBe('x');
  });

  it('writes through a symlink that stays inside to its target', async () => {
    symlinkSync(path.join(root, 'lines.txt'), path.join(root, 'alias.txt'));
    await fs.writeTextFile({ sessionId: S, path: path.join(root, 'alias.txt'), content: 'via alias' });
    expect(readFileSync(path.join(root, 'lines.txt'), 'utf8')).toBe('via alias');
    expect(writes[0]?.path).toBe(path.join(root, 'lines.txt'));
  });

  describe('outside the roots: rejected, nothing on disk', () => {
    const cases: [string, () => string, () => string][] = [
      ['`..` to a new file', () => `${root}/../outside/new.txt`, () => path.join(outside, 'new.txt')],
      ['`..` into a new directory', () => `${root}/../outside/newdir/f.txt`, () => path.join(outside, 'newdir')],
      [
        'symlinked parent escaping',
        () => (symlinkSync(outside, path.join(root, 'link')), path.join(root, 'link/planted.txt')),
        () => path.join(outside, 'planted.txt'),
      ],
      [
        'dangling symlink to outside',
        () => (symlinkSync(path.join(outside, 'ghost.txt'), path.join(root, 'ghost')), path.join(root, 'ghost')),
        () => path.join(outside, 'ghost.txt'),
      ],
    ];
    it.each(cases)('%s', async (_name, requested, target) => {
      const p = requested();
      const e = await failure(fs.writeTextFile({ sessionId: S, path: p, content: 'pwned' }));
      expect(e.code).toBe(-32602);
      expect(e.data).toEqual({ path: p, reason: 'outside_roots' });
      expect(existsSync(target())).toBe(false);
      expect(writes).toEqual([]);
    });

    it('an existing file outside is left untouched', async () => {
      symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 's.txt'));
      await failure(fs.writeTextFile({ sessionId: S, path: path.join(root, 's.txt'), content: 'pwned' }));
      expect(readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret');
    });
  });

  it('a directory -> -32602, unchanged', async () => {
    mkdirSync(path.join(root, 'd'));
    const e = await failure(fs.writeTextFile({ sessionId: S, path: path.join(root, 'd'), content: 'x' }));
    expect(e.code).toBe(-32602);
    expect(statSync(path.join(root, 'd')).isDirectory()).toBe(true);
  });

  it('below a regular file -> -32602 not_a_directory', async () => {
    const e = await failure(fs.writeTextFile({ sessionId: S, path: path.join(root, 'lines.txt/x'), content: 'x' }));
    expect(e.code).toBe(-32602);
    expect(e.data).toMatchObject({ reason: 'not_a_directory' });
  });

  it('unknown session -> -32002 and nothing written', async () => {
    const p = path.join(root, 'n.txt');
    const e = await failure(fs.writeTextFile({ sessionId: 'other', path: p, content: 'x' }));
    expect(e.code).toBe(-32002);
    expect(existsSync(p)).toBe(false);
  });

  it('non-string content -> -32602', async () => {
    const e = await failure(
      fs.writeTextFile({ sessionId: S, path: path.join(root, 'n.txt'), content: 5 as unknown as string }),
    );
    expect(e.code).toBe(-32602);
  });

  it('an onWrite that throws does not fail the write', async () => {
    const h = createFsHandlers({
      rootsFor: () => [root],
      onWrite: () => {
        throw new Error('recorder down');
      },
    });
    const p = path.join(root, 'ok.txt');
    await expect(h.writeTextFile({ sessionId: S, path: p, content: 'ok' })).resolves.toEqual({});
    expect(readFileSync(p, 'utf8')).toBe('ok');
  });
});

describe('authorize: decided after the roots check, before any I/O', () => {
  function gated(decide: (e: ClientEffect) => void | Promise<void>) {
    const seen: ClientEffect[] = [];
    const h = createFsHandlers({
      rootsFor: (id) => (id === S ? [root] : undefined),
      onWrite: (e) => void writes.push(e),
      authorize: async (e) => {
        seen.push(e);
        await decide(e);
      },
    });
    return { h, seen };
  }
  const refuse = () => {
    throw new RequestError(-32000, 'Permission denied', { reason: 'permission_denied' });
  };

  it('a read is authorised with the requested and the real path; a refusal reaches the agent, nothing read', async () => {
    symlinkSync(path.join(root, 'lines.txt'), path.join(root, 'alias'));
    const { h, seen } = gated(refuse);
    const e = await failure(h.readTextFile({ sessionId: S, path: path.join(root, 'alias') }));
    expect(e.data).toEqual({ reason: 'permission_denied' });
    expect(seen).toEqual([
      { kind: 'fs.read', sessionId: S, path: path.join(root, 'alias'), realPath: path.join(root, 'lines.txt') },
    ]);
  });

  it('a refused read of a missing file says nothing about it (asked before looking)', async () => {
    const { h, seen } = gated(refuse);
    const e = await failure(h.readTextFile({ sessionId: S, path: path.join(root, 'nope.txt') }));
    expect(e.data).toEqual({ reason: 'permission_denied' });
    expect(seen).toHaveLength(1);
  });

  it('a refused write leaves nothing on disk, not even its new directories', async () => {
    const { h, seen } = gated(refuse);
    const p = path.join(root, 'new', 'deep', 'f.txt');
    await failure(h.writeTextFile({ sessionId: S, path: p, content: 'x' }));
    expect(seen[0]).toMatchObject({ kind: 'fs.write', realPath: p });
    expect(existsSync(path.join(root, 'new'))).toBe(false);
    expect(writes).toEqual([]);
  });

  it('outside the roots is refused before authorize is asked', async () => {
    const { h, seen } = gated(() => {});
    await failure(h.writeTextFile({ sessionId: S, path: path.join(outside, 'x.txt'), content: 'x' }));
    expect(seen).toEqual([]);
  });

  it('an allowed write and read go ahead', async () => {
    const { h } = gated(() => {});
    await h.writeTextFile({ sessionId: S, path: path.join(root, 'a', 'b.txt'), content: 'hi' });
    expect(await h.readTextFile({ sessionId: S, path: path.join(root, 'a', 'b.txt') })).toEqual({ content: 'hi' });
  });
});

describe('a swap between the check and the use does not escape the roots', () => {
  // The authorize hook runs after the roots check and before the I/O: the swap goes there,
  // exactly where an agent's own process racing Talaria would put it.
  function racing(swap: () => void) {
    return createFsHandlers({ rootsFor: () => [root], authorize: async () => swap() });
  }
  const SECRET = () => path.join(outside, 'secret.txt');

  it('read: the file replaced by a link to a secret outside -> path_changed, secret not returned', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'inside');
    const h = racing(() => {
      rmSync(path.join(root, 'a.txt'));
      symlinkSync(SECRET(), path.join(root, 'a.txt'));
    });
    const e = await failure(h.readTextFile({ sessionId: S, path: path.join(root, 'a.txt') }));
    expect(e.code).toBe(RPC.INVALID_PARAMS);
    expect(e.data).toMatchObject({ reason: 'path_changed' });
  });

  it.runIf(process.platform === 'linux')(
    'read: a parent directory replaced by a link outside -> path_changed',
    async () => {
      mkdirSync(path.join(root, 'sub'));
      writeFileSync(path.join(root, 'sub', 'secret.txt'), 'inside');
      const h = racing(() => {
        rmSync(path.join(root, 'sub'), { recursive: true });
        symlinkSync(outside, path.join(root, 'sub'));
      });
      const e = await failure(h.readTextFile({ sessionId: S, path: path.join(root, 'sub', 'secret.txt') }));
      expect(e.data).toMatchObject({ reason: 'path_changed' });
    },
  );

  it('write: an existing parent replaced by a link outside -> refused, nothing written outside', async () => {
    mkdirSync(path.join(root, 'sub'));
    const h = racing(() => {
      rmSync(path.join(root, 'sub'), { recursive: true });
      symlinkSync(outside, path.join(root, 'sub'));
    });
    const e = await failure(
      h.writeTextFile({ sessionId: S, path: path.join(root, 'sub', 'planted.txt'), content: 'pwned' }),
    );
    expect(e.data).toMatchObject({ reason: 'path_changed' });
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('write: a parent still to be created appears as a link outside -> refused, nothing written outside', async () => {
    const h = racing(() => symlinkSync(outside, path.join(root, 'fresh')));
    const e = await failure(
      h.writeTextFile({ sessionId: S, path: path.join(root, 'fresh', 'deeper', 'planted.txt'), content: 'pwned' }),
    );
    expect(e.data).toMatchObject({ reason: 'path_changed' });
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('write: the file itself replaced by a link outside -> path_changed, the secret untouched', async () => {
    writeFileSync(path.join(root, 'a.txt'), 'inside');
    const h = racing(() => {
      rmSync(path.join(root, 'a.txt'));
      symlinkSync(SECRET(), path.join(root, 'a.txt'));
    });
    const e = await failure(h.writeTextFile({ sessionId: S, path: path.join(root, 'a.txt'), content: 'new' }));
    expect(e.data).toMatchObject({ reason: 'path_changed' });
    expect(readFileSync(SECRET(), 'utf8')).toBe('top secret');
  });
});
