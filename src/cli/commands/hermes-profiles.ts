/**
 * `talaria hermes profiles [list|create|use]`: Hermes' profiles (its `hermes profile list` and
 * the profiles folder), creating one with Hermes, and choosing the one a workspace's new Hermes
 * sessions use — a named one, or the workspace's own (`--own`, created by its first session).
 */
import { resolve } from 'node:path';
import { OWN_PROFILE_PROVIDER, setWorkspaceProfile, type Harness } from '../../harness/index.js';
import { findHermes } from '../../providers/hermes/binary.js';
import { createProfile, workspaceProfileName } from '../../providers/hermes/profile-create.js';
import { hermesProfileListing } from '../../providers/hermes/profile-listing.js';
import { TalariaError } from '../../protocol/errors.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { HERMES_HELP } from '../help-admin.js';
import type { CliContext } from './common.js';

const OPTIONS = {
  json: { type: 'boolean' },
  clone: { type: 'boolean' },
  own: { type: 'boolean' },
  none: { type: 'boolean' },
  workspace: { type: 'string' },
} as const;

export async function hermesProfilesCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('hermes profiles', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${HERMES_HELP}\n`);
    return EXIT.OK;
  }
  const [action = 'list', ...rest] = p.positionals;
  if (!['list', 'create', 'use'].includes(action))
    throw new UsageError(`hermes profiles: unknown action '${action}' (list, create or use)`);
  const dir = resolve(str(p, 'workspace') ?? process.cwd());
  const h = ctx.harness({ warm: false });
  try {
    if (action === 'list') {
      if (rest.length) throw new UsageError(`hermes profiles list: unexpected argument '${rest[0]}'`);
      return await list(h, dir, flag(p, 'json'), ctx);
    }
    if (action === 'create') {
      if (rest.length !== 1) throw new UsageError('hermes profiles create: give one NAME');
      return await create(h, rest[0]!, flag(p, 'clone'), flag(p, 'json'), ctx);
    }
    return use(h, dir, rest, { own: flag(p, 'own'), none: flag(p, 'none'), json: flag(p, 'json') }, ctx);
  } finally {
    await h.close();
  }
}

async function list(h: Harness, dir: string, json: boolean, ctx: CliContext): Promise<number> {
  const listing = await hermesProfileListing(h.env);
  // Only a workspace Talaria already knows: listing never adds one to the store.
  const w = h.workspaces.find(dir);
  const set = w ? h.profileFor(w.id, OWN_PROFILE_PROVIDER) : undefined;
  const workspace = w && {
    path: w.path,
    own: set?.own === true,
    ownName: workspaceProfileName(w.path),
    ...(set ? { profile: set.profile } : {}),
  };
  if (json) {
    const out = {
      v: 1,
      profiles: listing.profiles,
      ...(listing.problem ? { problem: listing.problem } : {}),
      ...(workspace ? { workspace } : {}),
    };
    ctx.io.stdout.write(`${JSON.stringify(out)}\n`);
    return EXIT.OK;
  }
  if (listing.problem) ctx.io.stderr.write(`talaria hermes profiles: ${listing.problem}\n`);
  const rows = listing.profiles.map((pr) => [
    `${pr.active ? '*' : ' '} ${pr.name}`,
    pr.model ?? '—',
    pr.listed ? (pr.onDisk ? 'listed' : 'listed, no folder') : 'folder only',
    workspace?.profile === pr.name ? '← this workspace' : '',
  ]);
  const width = (i: number) => Math.max(...[['  PROFILE', 'MODEL', 'SEEN'], ...rows].map((r) => r[i]!.length));
  const line = (r: string[]) =>
    r
      .map((c, i) => (i < 3 ? c.padEnd(width(i)) : c))
      .join('  ')
      .trimEnd();
  ctx.io.stdout.write([line(['  PROFILE', 'MODEL', 'SEEN', '']), ...rows.map(line)].join('\n') + '\n');
  if (workspace?.own && !listing.profiles.some((pr) => pr.name === workspace.ownName))
    ctx.io.stdout.write(`This workspace's own profile ${workspace.ownName} is created by its first Hermes session.\n`);
  return EXIT.OK;
}

async function create(h: Harness, name: string, clone: boolean, json: boolean, ctx: CliContext): Promise<number> {
  const bin = findHermes(h.env).found?.command;
  if (!bin) {
    ctx.io.stderr.write('talaria hermes profiles: Hermes is not installed (see `talaria doctor`)\n');
    return EXIT.NOT_READY;
  }
  try {
    const made = await createProfile(h.env, name, { command: bin, clone });
    ctx.io.stdout.write(
      json ? `${JSON.stringify({ v: 1, created: made })}\n` : `Created Hermes profile ${made.name} at ${made.home}\n`,
    );
    return EXIT.OK;
  } catch (e) {
    if (!(e instanceof TalariaError)) throw e;
    ctx.io.stderr.write(`talaria hermes profiles: ${e.message}\n`);
    return e.code === 'invalid_argument' || e.code === 'invalid_state' ? EXIT.USAGE : EXIT.NOT_READY;
  }
}

function use(
  h: Harness,
  dir: string,
  rest: string[],
  o: { own: boolean; none: boolean; json: boolean },
  ctx: CliContext,
): number {
  const picks = [o.own, o.none, rest.length > 0].filter(Boolean).length;
  if (picks !== 1 || rest.length > 1)
    throw new UsageError('hermes profiles use: give one of NAME, --own or --none (and --workspace DIR, default: here)');
  const row = h.workspaces.ensure({ path: dir });
  let w;
  try {
    w = setWorkspaceProfile(h.workspaces, row.id, o.own ? { own: true } : { profile: o.none ? null : rest[0]! });
  } catch (e) {
    if (e instanceof TalariaError && e.code === 'invalid_argument')
      throw new UsageError(`hermes profiles use: ${e.message}`);
    throw e;
  }
  const set = h.profileFor(w!.id, OWN_PROFILE_PROVIDER);
  const said = set?.own
    ? `its own profile ${set.profile}${set.exists ? '' : ' (created by its first Hermes session)'}`
    : set
      ? `profile ${set.profile}`
      : "Hermes' active profile";
  if (o.json) ctx.io.stdout.write(`${JSON.stringify({ v: 1, workspace: w!.path, ...set })}\n`);
  else ctx.io.stdout.write(`New Hermes sessions in ${w!.path} use ${said}.\n`);
  return EXIT.OK;
}
