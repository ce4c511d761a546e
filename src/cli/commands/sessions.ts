/** `talaria sessions list|show|archive|unarchive|export|import|fork|branches|rewind|continue`: stored sessions. */
import { readFileSync, writeFileSync } from 'node:fs';
import { TalariaError } from '../../protocol/errors.js';
import { formatCost } from '../../providers/hermes/state-db.js';
import { readProvenance, type HermesProvenance } from '../../providers/hermes/provenance.js';
import { sessionUsage, storedFailure } from '../../harness/index.js';
import type { ExportFormat, Harness, HarnessExtras } from '../../harness/index.js';
import { choice, flag, parse, splitCommand, str, UsageError, type OptionSpec, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { SESSIONS_HELP } from '../help-admin.js';
import { colorEnabled, createProgress } from '../io.js';
import { createStyle } from '../render/style.js';
import { sessionRows } from '../render/sessions.js';
import type { CliContext } from './common.js';
import { workspaceDir } from '../agent-options.js';
import { branches, continueIn, rewind } from './sessions-branches.js';
import { fleetList, fleetRows } from './sessions-fleet.js';

type H = Harness & HarnessExtras;
type Sub = (p: Parsed, h: H, ctx: CliContext) => Promise<number>;

const FORMATS = ['md', 'json', 'fixture'] as const;

const SUBS: Record<string, { options: OptionSpec; args: number; run: Sub }> = {
  list: {
    options: {
      archived: { type: 'boolean' },
      'archived-only': { type: 'boolean' },
      'all-workspaces': { type: 'boolean' },
      'store-only': { type: 'boolean' },
      agent: { type: 'string' },
      'agent-cmd': { type: 'string' },
      profile: { type: 'string' },
      cwd: { type: 'string' },
      json: { type: 'boolean' },
      fleet: { type: 'boolean' },
    },
    args: 0,
    run: list,
  },
  show: { options: { json: { type: 'boolean' } }, args: 1, run: show },
  archive: { options: {}, args: 1, run: async (p, h, ctx) => archive(p, h, ctx, true) },
  unarchive: { options: {}, args: 1, run: async (p, h, ctx) => archive(p, h, ctx, false) },
  export: { options: { format: { type: 'string' }, out: { type: 'string' } }, args: 1, run: exportCmd },
  import: {
    options: {
      agent: { type: 'string' },
      cwd: { type: 'string' },
      title: { type: 'string' },
      json: { type: 'boolean' },
    },
    args: 1,
    run: importCmd,
  },
  fork: { options: { json: { type: 'boolean' } }, args: 1, run: fork },
  branches: { options: { json: { type: 'boolean' } }, args: 1, run: branches },
  rewind: { options: { back: { type: 'string' }, json: { type: 'boolean' } }, args: 1, run: rewind },
  continue: { options: { agent: { type: 'string' }, json: { type: 'boolean' } }, args: 1, run: continueIn },
};

export async function sessionsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const [sub, ...rest] = argv;
  if (sub === undefined)
    throw new UsageError('sessions: missing COMMAND (list, show, archive, unarchive, export, import, fork)');
  if (sub === '--help' || sub === '-h' || sub === 'help') {
    io.stdout.write(`${SESSIONS_HELP}\n`);
    return EXIT.OK;
  }
  const spec = SUBS[sub];
  if (!spec)
    throw new UsageError(`sessions: unknown command '${sub}' (list, show, archive, unarchive, export, import, fork)`);
  const p = parse(`sessions ${sub}`, rest, spec.options);
  if (flag(p, 'help')) {
    io.stdout.write(`${SESSIONS_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length !== spec.args) {
    throw new UsageError(
      `sessions ${sub}: ${spec.args === 0 ? `unexpected argument '${p.positionals[0]}'` : p.positionals.length === 0 ? `missing ${sub === 'import' ? 'FILE' : 'ID'}` : 'too many arguments'}`,
    );
  }
  // Options are checked before the store is opened.
  if (sub === 'export') choice('sessions export', 'format', str(p, 'format'), FORMATS, 'md');
  const h = ctx.harness();
  try {
    return await spec.run(p, h, ctx);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof TalariaError && ['session_not_found', 'invalid_argument', 'not_found'].includes(err.code))
      throw new UsageError(`sessions ${sub}: ${err.message}`);
    if (err instanceof TalariaError) {
      io.stderr.write(`talaria sessions ${sub}: ${err.message}\n`);
      return EXIT.NOT_READY;
    }
    throw err;
  } finally {
    await h.close();
  }
}

function write(ctx: CliContext, text: string): number {
  ctx.io.stdout.write(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  return EXIT.OK;
}

async function list(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const includeArchived = flag(p, 'archived');
  const archivedOnly = flag(p, 'archived-only');
  const json = flag(p, 'json');
  const style = createStyle(colorEnabled(io.stdout, io.env));
  if (flag(p, 'fleet')) {
    const f = fleetList(h.store, h.sessions.list({ includeArchived, archivedOnly }));
    if (json) return write(ctx, JSON.stringify({ v: 1, ...f }));
    return write(ctx, fleetRows(f.sessions).join('\n'));
  }
  if (flag(p, 'all-workspaces')) {
    const rows = h.sessions.list({ includeArchived, archivedOnly }).map((r) => withFailure(h, r));
    if (json) return write(ctx, JSON.stringify({ v: 1, sessions: rows }));
    return write(
      ctx,
      sessionRows(
        rows.map((r) => ({ ...r, stored: true, updatedAt: r.lastActiveAt ?? r.createdAt })),
        style,
      ).join('\n'),
    );
  }
  const cwd = workspaceDir('sessions list', str(p, 'cwd'));
  const ws = h.workspaces.open(cwd);
  let agent: { provider: string; profile?: string } | undefined;
  if (!flag(p, 'store-only')) {
    let a = str(p, 'agent');
    const cmd = str(p, 'agent-cmd');
    if (a !== undefined && cmd !== undefined)
      throw new UsageError('sessions list: pass either --agent or --agent-cmd, not both');
    if (cmd !== undefined) {
      const words = splitCommand(cmd);
      if (words.length === 0) throw new UsageError('sessions list: --agent-cmd is empty');
      // The same command line gets the same ad-hoc id its sessions were stored under.
      a = h.commandAgent(words[0]!, words.slice(1), cmd.trim()).id;
    }
    if (a !== undefined && !h.registry.has(a)) throw new UsageError(`sessions list: unknown agent '${a}'`);
    const pick = await h.pickAgent({
      workspace: cwd,
      ...(a ? { provider: a } : {}),
      ...(str(p, 'profile') ? { profile: str(p, 'profile')! } : {}),
    });
    agent = { provider: pick.provider, ...(pick.profile ? { profile: pick.profile } : {}) };
  }
  const progress = createProgress(io.stderr, { tty: io.stderr.isTTY === true, quiet: io.stderr.isTTY !== true });
  if (agent) progress.step(`Asking ${h.registry.get(agent.provider)?.label ?? agent.provider} for its sessions…`);
  const r = await ws.sessions({ includeArchived, archivedOnly, ...(agent ? { agent } : {}) });
  progress.done();
  r.sessions = r.sessions.map((s) => (s.stored ? withFailure(h, s) : s));
  if (agent && r.agentProblem)
    io.stderr.write(`talaria sessions list: the agent's own list is missing: ${r.agentProblem}\n`);
  if (json)
    return write(
      ctx,
      JSON.stringify({
        v: 1,
        workspace: cwd,
        sessions: r.sessions,
        ...(r.agentProblem ? { agentProblem: r.agentProblem } : {}),
      }),
    );
  return write(ctx, sessionRows(r.sessions, style).join('\n'));
}

/** The row with the error its last stored turn ended with, when it did (a failed session). */
function withFailure<R extends { id: string }>(h: H, row: R): R {
  const failure = storedFailure(h.store, row.id);
  return failure ? { ...row, failure } : row;
}

/** The stored thread (Markdown or the JSON export), then the session's tokens and cost. */
async function show(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const json = flag(p, 'json');
  const text = await h.sessions.export(p.positionals[0]!, json ? 'json' : 'md');
  const row = h.sessions.find(p.positionals[0]!)!;
  const report = sessionUsage(h.store, h.env, [row]);
  const usage = report.sessions[0]!;
  const provenance = readProvenance(h.sessions.meta(row.id)?.meta);
  if (json) {
    const out = {
      ...(JSON.parse(text) as Record<string, unknown>),
      usage,
      ...(report.problems.length > 0 ? { usageProblems: report.problems } : {}),
      ...(provenance ? { hermes: { provenance } } : {}),
    };
    return write(ctx, JSON.stringify(out, null, 2));
  }
  for (const problem of report.problems) ctx.io.stderr.write(`talaria sessions show: ${problem}\n`);
  const t = usage.tokens;
  const from = usage.from === 'hermes-state-db' ? "Hermes' state.db" : 'Talaria';
  const l = usage.hermes?.lineage;
  const plural = (n: number, word: string) => (n === 0 ? '' : `${n} ${word}${n === 1 ? '' : 's'}`);
  const parts = l
    ? [plural(l.continuations, 'compression continuation'), plural(l.subagents, 'subagent')].filter(Boolean).join(', ')
    : '';
  const unpriced =
    l && l.unpricedParts > 0 && usage.cost.status !== 'unknown'
      ? `, ${plural(l.unpricedParts, 'part')} without price`
      : '';
  const line = `Usage: ${t.input.toLocaleString('en-US')} input · ${t.output.toLocaleString('en-US')} output · ${t.total.toLocaleString('en-US')} total tokens · cost ${formatCost(usage.cost)} (from ${from}${parts ? `; incl. ${parts}` : ''}${unpriced})`;
  const lineage = provenance && provenance.compressionDepth > 0 ? `${lineageLine(provenance)}\n` : '';
  return write(ctx, `${text.replace(/\n*$/, '')}\n\n---\n${line}\n${lineage}`);
}

/** Where Hermes keeps the conversation now: it moved to a new row at every compression (compression.in_place false). */
function lineageLine(p: HermesProvenance): string {
  const parent = p.parentHermesSessionId ? ` · parent ${p.parentHermesSessionId}` : '';
  return `Hermes: compressed ×${p.compressionDepth} · root ${p.rootHermesSessionId}${parent} · now ${p.currentHermesSessionId}`;
}

async function archive(p: Parsed, h: H, ctx: CliContext, on: boolean): Promise<number> {
  const row = on ? h.sessions.archive(p.positionals[0]!) : h.sessions.unarchive(p.positionals[0]!);
  return write(ctx, `${on ? 'Archived' : 'Unarchived'} ${row.id}${row.title ? ` (${row.title})` : ''}`);
}

async function exportCmd(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const format: ExportFormat = choice('sessions export', 'format', str(p, 'format'), FORMATS, 'md');
  const text = await h.sessions.export(p.positionals[0]!, format);
  const out = str(p, 'out');
  if (out === undefined) return write(ctx, text);
  try {
    writeFileSync(out, text);
  } catch (err) {
    throw new UsageError(`sessions export: cannot write ${out}: ${(err as Error).message}`);
  }
  ctx.io.stderr.write(`Exported ${p.positionals[0]} to ${out}\n`);
  return EXIT.OK;
}

async function importCmd(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const file = p.positionals[0]!;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `sessions import: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
  const agent = str(p, 'agent');
  const cwd = str(p, 'cwd');
  const row = await h.sessions.import(text, {
    ...(agent ? { provider: agent } : {}),
    ...(cwd ? { cwd: workspaceDir('sessions import', cwd) } : {}),
    ...(str(p, 'title') ? { title: str(p, 'title')! } : {}),
  });
  if (flag(p, 'json')) return write(ctx, JSON.stringify({ v: 1, session: row }));
  ctx.io.stderr.write(`Imported ${file} as a ${row.provider} session${row.title ? ` (${row.title})` : ''}\n`);
  return write(ctx, row.id);
}

async function fork(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const src = h.sessions.find(p.positionals[0]!);
  if (!src) throw new UsageError(`sessions fork: no stored session ${p.positionals[0]}`);
  const ws = h.workspaces.open(src.workspaceId ? (h.workspaces.get(src.workspaceId)?.path ?? src.cwd) : src.cwd);
  const progress = createProgress(ctx.io.stderr, {
    tty: ctx.io.stderr.isTTY === true,
    quiet: ctx.io.stderr.isTTY !== true,
  });
  progress.step(`Forking ${src.id} on ${h.registry.get(src.provider)?.label ?? src.provider}…`);
  let forked;
  try {
    forked = await ws.forkSession(src.id);
  } finally {
    progress.done();
  }
  if (flag(p, 'json'))
    return write(
      ctx,
      JSON.stringify({
        v: 1,
        id: forked.id,
        agentSessionId: forked.agentSessionId,
        origin: forked.origin,
        from: src.id,
      }),
    );
  ctx.io.stderr.write(
    `Forked ${src.id} (${forked.origin === 'forked' ? 'at the agent' : 'in Talaria: the agent starts without the earlier context'})\n`,
  );
  return write(ctx, forked.id);
}
