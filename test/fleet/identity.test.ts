import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HOST_FILE, hostIdentity, verifyHost } from '../../src/fleet/identity.js';
import { FleetError } from '../../src/fleet/errors.js';

const dirs: string[] = [];
const home = () => {
  const d = mkdtempSync(join(tmpdir(), 'talaria-fleet-id-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("a host's fleet identity", () => {
  it('is made once (0600), kept across opens, and signs what only its public key verifies', () => {
    const h = home();
    const a = hostIdentity(h, { name: 'box-a' });
    expect(a.id).toMatch(/^h_[0-9a-f-]{36}$/);
    expect(statSync(join(h, HOST_FILE)).mode & 0o777).toBe(0o600);
    const again = hostIdentity(h);
    expect([again.id, again.name, again.publicKey]).toEqual([a.id, 'box-a', a.publicKey]);
    const sig = a.sign('pair h_x with h_y at 1700000000000');
    expect(verifyHost(a.publicKey, 'pair h_x with h_y at 1700000000000', sig)).toBe(true);
    expect(verifyHost(a.publicKey, 'pair h_x with h_z at 1700000000000', sig)).toBe(false);
    const other = hostIdentity(home());
    expect(other.id).not.toBe(a.id);
    expect(verifyHost(other.publicKey, 'pair h_x with h_y at 1700000000000', sig)).toBe(false);
    // Garbage never throws: a forged request is just not verified.
    expect(verifyHost('not a key', 'x', 'not a signature')).toBe(false);
    // The private key is in the file and nowhere in what the identity hands out.
    const file = JSON.parse(readFileSync(join(h, HOST_FILE), 'utf8')) as { privateKey: string };
    expect(JSON.stringify(a)).not.toContain(file.privateKey);
  });

  it('a damaged file is an error that says what to do, and is left as it was', () => {
    const h = home();
    writeFileSync(join(h, HOST_FILE), '{"id": "nope"}', { mode: 0o644 });
    let err: unknown;
    try {
      hostIdentity(h);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FleetError);
    expect(err).toMatchObject({ code: 'identity_damaged' });
    expect((err as FleetError).fix).toMatch(/move .*host\.json aside/);
    expect(readFileSync(join(h, HOST_FILE), 'utf8')).toBe('{"id": "nope"}');
    // Tightened, not rewritten.
    expect(statSync(join(h, HOST_FILE)).mode & 0o777).toBe(0o600);
  });
});
