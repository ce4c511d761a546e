/**
 * Who may join a fleet (docs/fleet.md §5). A host joins — its first row in fleet_hosts, or its
 * return after a revocation — only with a join token minted by `talaria fleet token` (only its
 * SHA-256 is stored; good for any number of hosts until it expires, so one token adds a team's
 * boxes). A host already registered and not revoked rejoins without one (a restart), and the
 * first host of an empty fleet needs none (there is no one to ask for a token yet). And a member
 * is reached over TLS unless it is on loopback, as `serve --host` already requires.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isLoopbackHost } from '../os/loopback.js';
import type { Store } from '../store/index.js';
import { FleetError } from './errors.js';
import { FLEET_CHANNEL } from './view.js';

const PREFIX = 'tfj_';
const HOW =
  'ask a member of the fleet for one: `talaria fleet token` (with the store: --store or $TALARIA_STORE), then `talaria serve --join TOKEN` or $TALARIA_FLEET_JOIN';

export const hashJoinToken = (token: string): string => createHash('sha256').update(token.trim()).digest('hex');

/** A new join token, stored by its hash; the token itself is returned once. */
export function mintJoinToken(
  store: Store,
  o: { ttlMs: number; label?: string; now?: number },
): { token: string; id: string; expiresAt: number } {
  const at = o.now ?? Date.now();
  const token = PREFIX + randomBytes(32).toString('base64url');
  const id = `ft_${randomUUID().slice(0, 8)}`;
  const expiresAt = at + o.ttlMs;
  store.fleetTokens.add({ id, tokenHash: hashJoinToken(token), label: o.label, createdAt: at, expiresAt });
  return { token, id, expiresAt };
}

export type Admission = 'first' | 'member' | 'token';

/**
 * Whether `hostId` may register now; with a token, counts its use and lifts a revocation. Call it
 * inside the transaction that registers the host. Throws FleetError with what to do otherwise.
 */
export function admitHost(store: Store, hostId: string, token: string | undefined, at: number): Admission {
  const row = store.fleetHosts.get(hostId);
  if (row && row.revokedAt === undefined) return 'member';
  if (!row && !token && store.fleetHosts.list().length === 0) return 'first';
  if (!token) {
    if (row)
      throw new FleetError(
        'host_revoked',
        `this host (${row.name}, ${hostId}) was revoked from the fleet`,
        { hostId },
        { fix: `it rejoins only with a new join token: ${HOW}` },
      );
    throw new FleetError('join_token_required', 'joining this fleet needs a join token', { hostId }, { fix: HOW });
  }
  const t = store.fleetTokens.byHash(hashJoinToken(token));
  if (!t)
    throw new FleetError('join_token_invalid', 'this join token is not one of this fleet’s', { hostId }, { fix: HOW });
  if (t.expiresAt <= at)
    throw new FleetError(
      'join_token_expired',
      `this join token expired at ${new Date(t.expiresAt).toISOString()}`,
      { hostId, token: t.id },
      { fix: `a new one: ${HOW}` },
    );
  // "A new token": one minted before the revocation (still good for other boxes) does not undo it.
  if (row?.revokedAt !== undefined && t.createdAt <= row.revokedAt)
    throw new FleetError(
      'host_revoked',
      `this host (${row.name}, ${hostId}) was revoked after this join token was made`,
      { hostId, token: t.id },
      { fix: `it rejoins only with a token made since: ${HOW}` },
    );
  store.fleetTokens.used(t.id, at);
  if (row) store.fleetHosts.readmit(hostId);
  return 'token';
}

/**
 * Revokes a host: its row says so and the notification goes with the write, so every host (the
 * revoked one too: it leaves) sees it on commit, not when a lease runs out. False if it already was.
 */
export function revokeHost(store: Store, hostId: string, at: number): boolean {
  return store.transaction(() => {
    const changed = store.fleetHosts.revoke(hostId, at);
    if (changed) store.notify(FLEET_CHANNEL, JSON.stringify({ kind: 'host', id: hostId }));
    return changed;
  });
}

/** Off loopback a member is reached over TLS only (the same rule as `serve --host`). */
export function checkFleetUrl(url: string): void {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new FleetError(
      'insecure_url',
      `the public URL '${url}' is not a URL`,
      { url },
      { fix: 'give --public-url https://HOST:PORT' },
    );
  }
  // The URL flavour of the loopback test (ACP endpoints use it too); the server's is for a bind address.
  if (u.protocol !== 'https:' && !isLoopbackHost(u.hostname))
    throw new FleetError(
      'insecure_url',
      `a fleet member off loopback is reached over TLS only, not ${u.protocol}//${u.host}`,
      { url },
      { fix: 'serve with --tls-cert and --tls-key (and --public-url https://…), or keep the host on loopback' },
    );
}
