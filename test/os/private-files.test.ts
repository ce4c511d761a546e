import { afterEach, describe, expect, it } from 'vitest';
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensurePrivateDir, openPrivateFile, tightenFile, writePrivateFile } from '../../src/os/private-files.js';

const dirs: string[] = [];
const temp = () => {
  const d = realpathSync(mkdtempSync(join(tmpdir(), 'talaria-priv-')));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const mode = (p: string) => statSync(p).mode & 0o777;

describe('private files', () => {
  it('writePrivateFile creates 0600 and tightens an existing 0644 file it overwrites', () => {
    const d = temp();
    const fresh = join(d, 'export.json');
    writePrivateFile(fresh, '{"a":1}\n');
    expect([mode(fresh), readFileSync(fresh, 'utf8')]).toEqual([0o600, '{"a":1}\n']);
    const old = join(d, 'old.md');
    writeFileSync(old, 'previous, longer content', { mode: 0o644 });
    chmodSync(old, 0o644);
    writePrivateFile(old, 'new');
    expect([mode(old), readFileSync(old, 'utf8')]).toEqual([0o600, 'new']);
  });

  it('atomic: through a temp file renamed over the target (no temp left), 0600 even over a looser file', () => {
    const d = temp();
    const f = join(d, 'config.json');
    writeFileSync(f, '{}');
    chmodSync(f, 0o644);
    writePrivateFile(f, '{"agents":{}}\n', { atomic: true });
    expect([mode(f), readFileSync(f, 'utf8')]).toEqual([0o600, '{"agents":{}}\n']);
    expect(readdirSync(d)).toEqual(['config.json']);
    // A failed write leaves no temp file behind and the old file intact.
    expect(() => writePrivateFile(join(d, 'missing-dir', 'x.json'), 'x', { atomic: true })).toThrow(/ENOENT/);
    expect(readdirSync(d)).toEqual(['config.json']);
  });

  it('openPrivateFile (the --wire-log writer): a streaming fd on a 0600 file; devices such as /dev/null are left alone', () => {
    const d = temp();
    const log = join(d, 'wire.ndjson');
    writeFileSync(log, 'old');
    chmodSync(log, 0o666);
    const fd = openPrivateFile(log);
    writeSync(fd, 'line\n');
    closeSync(fd);
    expect([mode(log), readFileSync(log, 'utf8')]).toEqual([0o600, 'line\n']);
    const before = mode('/dev/null');
    closeSync(openPrivateFile('/dev/null'));
    expect(mode('/dev/null')).toBe(before);
  });

  it('ensurePrivateDir creates 0700 (parents too) and tightens an existing 0755 folder; tightenFile reports what it changed', () => {
    const d = temp();
    const nested = join(d, 'a', 'b');
    expect(ensurePrivateDir(nested)).toBe(false);
    expect([mode(join(d, 'a')), mode(nested)]).toEqual([0o700, 0o700]);
    chmodSync(nested, 0o755);
    expect(ensurePrivateDir(nested)).toBe(true);
    expect(mode(nested)).toBe(0o700);
    const f = join(d, 'f');
    writeFileSync(f, 'x');
    chmodSync(f, 0o640);
    expect(tightenFile(f)).toBe(true);
    expect(tightenFile(f)).toBe(false);
    expect(tightenFile(join(d, 'nope'))).toBe(false);
    expect(existsSync(join(d, 'nope'))).toBe(false);
  });

  it('tightening only takes away: a folder or file its owner made read-only stays read-only', () => {
    const d = temp();
    const ro = join(d, 'ro');
    ensurePrivateDir(ro);
    chmodSync(ro, 0o555);
    expect(ensurePrivateDir(ro)).toBe(true);
    expect(mode(ro)).toBe(0o500);
    chmodSync(ro, 0o700);
    const f = join(d, 'f');
    writeFileSync(f, 'x');
    chmodSync(f, 0o444);
    expect(tightenFile(f)).toBe(true);
    expect(mode(f)).toBe(0o400);
  });
});
