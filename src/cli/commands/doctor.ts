/**
 * `talaria doctor`: every agent found or not (version, gaps with their fixes), Hermes profiles,
 * config traps, the store (writable, undamaged), and the agent this workspace gets. Exit 0 only
 * when that agent is ready and the store can record.
 */
import { workspaceBinding } from '../../providers/config.js';
import { hermesProfileListing } from '../../providers/hermes/profile-listing.js';
import { workspaceDir } from '../agent-options.js';
import type { Readiness } from '../../providers/types.js';
import type { AgentPick } from '../../harness/index.js';
import { checkStore } from '../../store/check.js';
import { flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { DOCTOR_HELP } from '../help-admin.js';
import { colorEnabled } from '../io.js';
import { readinessBlock } from '../render/readiness.js';
import { createStyle } from '../render/style.js';
import { sanitize } from '../render/width.js';
import { storeProblemLine } from '../store-problem.js';
import type { CliContext } from './common.js';

const OPTIONS = {
  agent: { type: 'string' },
  profile: { type: 'string' },
  cwd: { type: 'string' },
  json: { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

const WHY: Record<AgentPick['from'], string> = {
  flag: 'asked for with --agent',
  workspace: "this workspace's binding in config.json",
  default: "config.json's defaultProvider",
  'best-ready': 'the best ready agent',
  fallback: 'no agent is ready, so Talaria falls back to its demo agent',
};

/** What to run next, the server first: it is the main face (`npm start` runs it), chat the terminal one. */
export const START_LINES = [
  '  talaria serve   the web UI and API on 127.0.0.1; prints a link (with its token) to open. `npm start` in a checkout runs it',
  '  talaria chat    the same agents and stored sessions in this terminal',
];

export function timeoutOption(command: string, value: string | undefined): number {
  const secs = value === undefined ? 10 : Number(value);
  if (!Number.isFinite(secs) || secs <= 0)
    throw new UsageError(`${command}: --timeout must be a positive number of seconds`);
  return Math.round(secs * 1000);
}

export async function doctorCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('doctor', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${DOCTOR_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0) throw new UsageError(`doctor: unexpected argument '${p.positionals[0]}'`);
  const cwd = workspaceDir('doctor', str(p, 'cwd'));
  const timeoutMs = timeoutOption('doctor', str(p, 'timeout'));
  const agent = str(p, 'agent');
  const h = ctx.harness();
  try {
    if (agent !== undefined && !h.registry.has(agent)) {
      throw new UsageError(
        `doctor: unknown agent '${agent}' (known: ${h.registry
          .list()
          .map((x) => x.id)
          .join(', ')})`,
      );
    }
    const profile = str(p, 'profile') ?? workspaceBinding(h.config, cwd)?.binding.profile;
    // Alongside the agents' checks: the integrity check reads the whole file.
    const storeChecked = checkStore(h.store, { timeoutMs });
    const agents = await h.agents({ ...(profile ? { profile } : {}), timeoutMs });
    const pick = await h.pickAgent({
      workspace: cwd,
      ...(agent ? { provider: agent } : {}),
      ...(profile ? { profile } : {}),
      timeoutMs,
      known: agents,
    });
    const chosen: Readiness | undefined =
      pick.checked.find((r) => r.providerId === pick.provider) ?? agents.find((r) => r.providerId === pick.provider);
    const store = await storeChecked;
    const ready = chosen?.ready === true && store.ok;
    // The store's problem is also the line every other command prints for it (exit 6 like theirs).
    if (!store.ok) io.stderr.write(`talaria doctor: ${storeProblemLine(store.problem)}\n`);
    const hermes = await hermesProfileListing(h.env, { timeoutMs });
    const traps = [
      ...h.configProblems.map((text) => ({ where: 'config.json', text, fix: `Edit ${h.home}/config.json.` })),
      ...hermes.lint.flatMap((l) =>
        l.issues.map((i) => ({
          where: `Hermes profile ${l.profile} (${l.home}/config.yaml line ${i.line})`,
          text: i.message,
          fix: i.fix,
        })),
      ),
    ];
    if (flag(p, 'json')) {
      const out = {
        v: 1,
        talaria: ctx.version,
        home: h.home,
        store: h.store.path,
        storeCheck: store.ok
          ? { ok: true, checked: store.checked, ...(store.note ? { note: store.note } : {}) }
          : { ok: false, problem: { code: store.problem.code, message: store.problem.message } },
        workspace: cwd,
        agents,
        hermes: { profiles: hermes.profiles, ...(hermes.problem ? { problem: hermes.problem } : {}) },
        traps,
        chosen: {
          provider: pick.provider,
          ...(pick.profile ? { profile: pick.profile } : {}),
          from: pick.from,
          ready: chosen?.ready === true,
        },
      };
      io.stdout.write(JSON.stringify(out, null, 2) + '\n');
      return ready ? EXIT.OK : EXIT.NOT_READY;
    }
    const style = createStyle(colorEnabled(io.stdout, io.env));
    const lines: string[] = [];
    lines.push(
      `${style.bold(`Talaria ${ctx.version}`)} · home ${h.home} · ${h.sessions.list({ includeArchived: true }).length} stored sessions`,
    );
    lines.push('', style.bold('Store'));
    if (store.ok)
      lines.push(
        `  ${style.green('✓')} ${h.store.path}: writable, ${store.checked ? 'integrity checked' : (store.note ?? 'not checked')}`,
      );
    else lines.push(`  ${style.red('✗')} ${sanitize(store.problem.message)}`);
    lines.push('', style.bold('Agents'));
    for (const r of agents) lines.push(...readinessBlock(r, style, { chosen: r.providerId === pick.provider }));
    lines.push('', style.bold('Hermes profiles'));
    if (hermes.profiles.length === 0) lines.push(`  none found${hermes.problem ? ` (${hermes.problem})` : ''}`);
    for (const pr of hermes.profiles) {
      const facts = [
        pr.active ? 'active' : '',
        pr.model ? `model ${pr.model}` : '',
        pr.onDisk ? '' : 'listed, no folder',
      ]
        .filter(Boolean)
        .join(' · ');
      lines.push(
        `  ${pr.active ? style.green('◆') : ' '} ${pr.name.padEnd(14)} ${pr.home}${facts ? `  ${style.dim(facts)}` : ''}`,
      );
    }
    lines.push('', style.bold('Config traps'));
    if (traps.length === 0) lines.push('  none found');
    for (const t of traps)
      lines.push(
        `  ${style.yellow('!')} ${t.where}: ${sanitize(t.text)}`,
        `      ${style.cyan('fix:')} ${sanitize(t.fix)}`,
      );
    lines.push('', style.bold(`Chosen agent for ${cwd}`));
    lines.push(`  ${pick.provider}${pick.profile ? ` (profile ${pick.profile})` : ''} — ${WHY[pick.from]}`);
    const agentReady = chosen?.ready === true;
    lines.push(
      `  ${agentReady ? style.green('ready') : style.red('not ready')}${!agentReady && chosen?.gaps[0] ? `: ${sanitize(chosen.gaps[0].fix)}` : ''}`,
    );
    lines.push(
      style.dim(
        '  (picked by: --agent, the workspace binding, defaultProvider, the best ready agent, else the demo agent)',
      ),
    );
    lines.push('', style.bold('Start'), ...START_LINES);
    io.stdout.write(lines.join('\n') + '\n');
    return ready ? EXIT.OK : EXIT.NOT_READY;
  } finally {
    await h.close();
  }
}
