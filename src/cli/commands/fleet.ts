/**
 * `talaria fleet token|hosts|revoke`: a fleet's join tokens and hosts, from the shared store (no
 * running server needed; the store from --store, $TALARIA_STORE or config.json, as `serve`).
 * A minted token is printed once, on stdout (handing it over is the point); only its hash is kept.
 */
import { isPgUrl, type FleetHostRow } from '../../store/index.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { parseDuration } from './caps.js';
import type { CliContext } from './common.js';

export const FLEET_HELP = `Usage: talaria fleet token|hosts|revoke [--store URL]

  talaria fleet token [--expires 24h] [--label TEXT]
      mints a join token, printed once: a new host joins with \`talaria serve --join TOKEN\` (or
      $TALARIA_FLEET_JOIN). Good for any number of hosts until it expires (default 24h; 30m, 2h, 7d)
  talaria fleet hosts [--json]     every host: id, name, URL, online, revoked
  talaria fleet revoke HOST        by id or unique name: it leaves the fleet at once (its serve
                                   stops) and rejoins only with a new token

The store is the fleet's PostgreSQL: --store URL, else $TALARIA_STORE, else config.json's "store".
The first host of an empty fleet joins without a token; a member restarting needs none.`;

export async function fleetCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(`${FLEET_HELP}\n`);
    return sub === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (!['token', 'hosts', 'revoke'].includes(sub))
    throw new UsageError(`fleet: unknown command '${sub}' (token, hosts, revoke)`);
  const p = parse(`fleet ${sub}`, rest, {
    store: { type: 'string' },
    expires: { type: 'string' },
    label: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (flag(p, 'help')) {
    io.stdout.write(`${FLEET_HELP}\n`);
    return EXIT.OK;
  }
  if (sub === 'revoke' && p.positionals.length !== 1)
    throw new UsageError('fleet revoke: give one host, by id or name (see talaria fleet hosts)');
  if (sub !== 'revoke' && p.positionals.length > 0)
    throw new UsageError(`fleet ${sub}: unexpected argument '${p.positionals[0]}'`);
  const expires = str(p, 'expires');
  const ttl = expires === undefined ? 24 * 3_600_000 : parseDuration(expires);
  const store = str(p, 'store');
  const h = ctx.harness(store !== undefined ? { store } : {});
  try {
    const where = store ?? (io.env.TALARIA_STORE || h.config.store);
    if (where === undefined || !isPgUrl(where)) {
      io.stderr.write(
        'talaria fleet: a fleet shares a postgres:// store: give --store URL (or $TALARIA_STORE, or "store" in config.json)\n',
      );
      return EXIT.USAGE;
    }
    const s = h.store;
    const { mintJoinToken, revokeHost } = await import('../../fleet/join.js');
    if (sub === 'token') {
      const label = str(p, 'label');
      const t = mintJoinToken(s, { ttlMs: ttl, ...(label ? { label } : {}) });
      io.stdout.write(`${t.token}\n`);
      io.stderr.write(
        `join token ${t.id}, good until ${new Date(t.expiresAt).toISOString()} for any number of hosts (shown once):\n  talaria serve --store … --join ${t.token.slice(0, 8)}…\n`,
      );
      return EXIT.OK;
    }
    const now = Date.now();
    const online = (x: FleetHostRow) => x.revokedAt === undefined && x.leaseUntil > now;
    if (sub === 'hosts') {
      const hosts = s.fleetHosts.list().map((x) => ({
        id: x.id,
        name: x.name,
        ...(x.url ? { url: x.url } : {}),
        online: online(x),
        revoked: x.revokedAt !== undefined,
        ...(x.revokedAt !== undefined ? { revokedAt: x.revokedAt } : {}),
        heartbeatAt: x.heartbeatAt,
      }));
      if (flag(p, 'json')) io.stdout.write(`${JSON.stringify({ v: 1, hosts })}\n`);
      else if (hosts.length === 0) io.stdout.write('no hosts\n');
      else
        for (const x of hosts)
          io.stdout.write(
            `${x.id}  ${x.name}  ${x.revoked ? 'revoked' : x.online ? 'online' : 'offline'}  ${x.url ?? '-'}\n`,
          );
      return EXIT.OK;
    }
    // revoke
    const arg = p.positionals[0]!;
    const all = s.fleetHosts.list();
    const byId = all.filter((x) => x.id === arg);
    const matches = byId.length > 0 ? byId : all.filter((x) => x.name === arg);
    if (matches.length !== 1) {
      io.stderr.write(
        `talaria fleet revoke: ${matches.length === 0 ? `no host '${arg}'` : `${matches.length} hosts are named '${arg}': give its id`} (see talaria fleet hosts)\n`,
      );
      return EXIT.USAGE;
    }
    const host = matches[0]!;
    const done = revokeHost(s, host.id, now);
    io.stdout.write(done ? `revoked ${host.id} (${host.name})\n` : `${host.id} (${host.name}) was already revoked\n`);
    return EXIT.OK;
  } finally {
    await h.close();
  }
}
