/**
 * `talaria caps mint|list|revoke`: persistent capability references for the caps face. Only the
 * store's table is touched (src/caps/refs.ts imports no @endo code), so this command does not lock
 * the process down. A minted URI is printed once, on stdout, because handing it over is the point;
 * `list` never shows secrets (only hashes are stored).
 */
import { RefStore, type RefFacet, type RefRow } from '../../caps/refs.js';
import { TalariaError } from '../../protocol/errors.js';
import { choice, flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import type { CliContext } from './common.js';
import { workspaceDir } from '../agent-options.js';

export const CAPS_HELP = `Usage: talaria caps mint|list|revoke

  talaria caps mint [--cwd DIR] [--agent ID]          a launcher: new sessions in DIR (with agent ID)
  talaria caps mint --dataspace                       the presence dataspace (observe, assert, retract)
  talaria caps mint --session ID [--facet controller|reader]
                    [--expires 30m|2h|7d] [--label TEXT] [--parent REF-ID] [--json]
      prints an ocapn:// URI once (a bearer secret: hand it only to whom it is for)
  talaria caps list [--all] [--json]                  references (never their secrets); --all: revoked too
  talaria caps revoke ID|URI                          revokes it and every reference minted below it`;

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseDuration(v: string): number {
  const m = /^(\d+)([smhd])$/.exec(v.trim());
  if (!m) throw new UsageError(`caps mint: --expires wants a duration like 30m, 2h or 7d (got '${v}')`);
  return Number(m[1]) * UNITS[m[2]!]!;
}

export async function capsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const [sub, ...rest] = argv;
  if (sub === undefined || sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(`${CAPS_HELP}\n`);
    return sub === undefined ? EXIT.USAGE : EXIT.OK;
  }
  if (!['mint', 'list', 'revoke'].includes(sub))
    throw new UsageError(`caps: unknown command '${sub}' (mint, list, revoke)`);
  const p = parse(`caps ${sub}`, rest, {
    cwd: { type: 'string' },
    agent: { type: 'string' },
    session: { type: 'string' },
    facet: { type: 'string' },
    expires: { type: 'string' },
    label: { type: 'string' },
    parent: { type: 'string' },
    dataspace: { type: 'boolean' },
    all: { type: 'boolean' },
    json: { type: 'boolean' },
  });
  if (flag(p, 'help')) {
    io.stdout.write(`${CAPS_HELP}\n`);
    return EXIT.OK;
  }
  if (sub === 'revoke' && p.positionals.length !== 1)
    throw new UsageError('caps revoke: give one reference id (see talaria caps list) or its URI');
  if (sub !== 'revoke' && p.positionals.length > 0)
    throw new UsageError(`caps ${sub}: unexpected argument '${p.positionals[0]}'`);
  const expires = str(p, 'expires');
  const ttl = expires === undefined ? undefined : parseDuration(expires);
  const facet = choice(`caps ${sub}`, 'facet', str(p, 'facet'), ['controller', 'reader'] as const, 'controller');
  const h = ctx.harness();
  try {
    const refs = new RefStore(h.store);
    const json = flag(p, 'json');
    if (sub === 'mint') {
      const sessionArg = str(p, 'session');
      let mintFacet: RefFacet = 'launcher';
      let target: string;
      if (flag(p, 'dataspace')) {
        mintFacet = 'observer';
        target = 'dataspace';
      } else if (sessionArg !== undefined) {
        const row = h.sessions.find(sessionArg);
        if (!row) throw new UsageError(`caps mint: no stored session '${sessionArg}' (see talaria sessions list)`);
        mintFacet = facet;
        target = row.id;
      } else {
        const agent = str(p, 'agent');
        target = JSON.stringify({
          workspace: workspaceDir('caps mint', str(p, 'cwd')),
          ...(agent ? { provider: agent } : {}),
        });
      }
      const label = str(p, 'label');
      const parent = str(p, 'parent');
      const m = refs.mint({
        facet: mintFacet,
        target,
        ...(ttl !== undefined ? { expiresIn: ttl } : {}),
        ...(label ? { label } : {}),
        ...(parent ? { parentId: refs.idOf(parent) ?? parent } : {}),
      });
      if (json)
        io.stdout.write(
          `${JSON.stringify({ v: 1, id: m.row.id, uri: m.uri, facet: m.row.facet, target: m.row.target, expiresAt: m.row.expiresAt ?? null })}\n`,
        );
      else {
        io.stdout.write(`${m.uri}\n`);
        io.stderr.write(
          `Minted ${m.row.facet} ${m.row.id}: the URI is a bearer secret and is not stored (revoke: talaria caps revoke ${m.row.id})\n`,
        );
      }
      return EXIT.OK;
    }
    if (sub === 'list') {
      const rows = refs.list({ includeRevoked: flag(p, 'all') });
      if (json) io.stdout.write(`${JSON.stringify({ v: 1, refs: rows })}\n`);
      else if (rows.length === 0) io.stdout.write('No references (mint one: talaria caps mint)\n');
      else for (const r of rows) io.stdout.write(`${line(r)}\n`);
      return EXIT.OK;
    }
    const arg = p.positionals[0]!;
    const id = arg.startsWith('ocapn://') ? refs.idOf(arg) : arg;
    if (id === undefined) throw new UsageError('caps revoke: no reference has that URI');
    const ids = refs.revoke(id);
    if (json) io.stdout.write(`${JSON.stringify({ v: 1, revoked: ids })}\n`);
    else
      io.stdout.write(
        ids.length === 0
          ? `${id} was already revoked\n`
          : `Revoked ${ids.length} reference${ids.length === 1 ? '' : 's'} (${id} and what was minted below it)\n`,
      );
    return EXIT.OK;
  } catch (err) {
    if (
      err instanceof TalariaError &&
      ['not_found', 'invalid_argument', 'ref_widening', 'ref_revoked', 'ref_expired'].includes(err.code)
    )
      throw new UsageError(`caps ${sub}: ${err.message}`);
    throw err;
  } finally {
    await h.close();
  }
}

function line(r: RefRow): string {
  const status =
    r.revokedAt !== undefined ? 'revoked' : r.expiresAt !== undefined && r.expiresAt <= Date.now() ? 'expired' : 'live';
  const exp = r.expiresAt !== undefined ? ` expires ${new Date(r.expiresAt).toISOString()}` : '';
  const parent = r.parentId ? ` parent ${r.parentId}` : '';
  return `${r.id}  ${status.padEnd(7)} ${r.facet.padEnd(10)} ${r.target}${exp}${parent}${r.label ? `  ${r.label}` : ''}`;
}
