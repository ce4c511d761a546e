/**
 * A host's identity in a fleet: an id and an Ed25519 key pair, made once and kept in the host's
 * Talaria home (`host.json`, 0600). The public key goes in the shared database; the private key
 * never leaves this file. Another host checks that a request comes from this one by its
 * signature (docs/fleet.md: pairing), so no secret is shared between hosts.
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, randomUUID, sign, verify } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { FleetError } from './errors.js';
import { ensurePrivateDir, tightenFile, writePrivateFile } from '../os/private-files.js';

export const HOST_FILE = 'host.json';

const stored = z.object({
  id: z.string().regex(/^h_[0-9a-f-]{36}$/),
  name: z.string().min(1),
  /** SPKI DER, base64. */
  publicKey: z.string().min(1),
  /** PKCS#8 DER, base64. */
  privateKey: z.string().min(1),
  createdAt: z.number(),
});

export interface HostIdentity {
  readonly id: string;
  /** What people see (the machine's name unless the user chose one). */
  readonly name: string;
  /** SPKI DER as base64: what other hosts verify with. */
  readonly publicKey: string;
  /** Signature of `data` (base64). */
  sign(data: string | Uint8Array): string;
}

/** True when `signature` (base64) is `publicKey`'s signature of `data`. Never throws on bad input. */
export function verifyHost(publicKey: string, data: string | Uint8Array, signature: string): boolean {
  try {
    const key = createPublicKey({ key: Buffer.from(publicKey, 'base64'), format: 'der', type: 'spki' });
    return verify(null, typeof data === 'string' ? Buffer.from(data) : data, key, Buffer.from(signature, 'base64'));
  } catch {
    return false;
  }
}

/** The host identity kept in `home`, made on first use. A damaged file is an error, never replaced silently. */
export function hostIdentity(home: string, o: { name?: string; now?: () => number } = {}): HostIdentity {
  const file = join(home, HOST_FILE);
  let rec: z.infer<typeof stored>;
  if (existsSync(file)) {
    tightenFile(file);
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw damaged(file, (e as Error).message);
    }
    const r = stored.safeParse(parsed);
    if (!r.success) throw damaged(file, r.error.issues[0]?.message ?? 'bad shape');
    rec = r.data;
  } else {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    rec = {
      id: `h_${randomUUID()}`,
      name: o.name ?? hostname(),
      publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
      privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
      createdAt: (o.now ?? Date.now)(),
    };
    ensurePrivateDir(home);
    writePrivateFile(file, JSON.stringify(rec, null, 2) + '\n', { atomic: true });
  }
  const key = createPrivateKey({ key: Buffer.from(rec.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
  const name = o.name ?? rec.name;
  return {
    id: rec.id,
    name,
    publicKey: rec.publicKey,
    sign: (data) => sign(null, typeof data === 'string' ? Buffer.from(data) : data, key).toString('base64'),
  };
}

function damaged(file: string, why: string): FleetError {
  return new FleetError(
    'identity_damaged',
    `${file} is damaged (${why}): this host's fleet identity cannot be read`,
    { file },
    { fix: `move ${file} aside to make a new identity (the fleet then sees a new host: revoke the old one)` },
  );
}
