/** `talaria usage [--by agent|workspace|day] [--json|--csv]`: tokens and cost of the stored sessions. */
import { addCosts, formatCostTotal, type CostTotal } from '../../providers/hermes/state-db.js';
import { groupUsage, sessionUsage, type UsageBy, type UsageGroup, type UsageTokens } from '../../harness/index.js';
import { choice, flag, parse, str, UsageError } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { USAGE_HELP } from '../help-admin.js';
import type { CliContext } from './common.js';

const BY = ['agent', 'workspace', 'day'] as const;

export async function usageCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('usage', argv, { by: { type: 'string' }, json: { type: 'boolean' }, csv: { type: 'boolean' } });
  if (flag(p, 'help')) {
    io.stdout.write(`${USAGE_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length > 0) throw new UsageError(`usage: unexpected argument '${p.positionals[0]}'`);
  const by: UsageBy = choice('usage', 'by', str(p, 'by'), BY, 'agent');
  if (flag(p, 'json') && flag(p, 'csv')) throw new UsageError('usage: pass either --json or --csv, not both');
  const h = ctx.harness();
  try {
    const report = sessionUsage(h.store, h.env, h.sessions.list({ includeArchived: true }));
    const groups = groupUsage(report.sessions, by);
    const total = totalOf(
      groups,
      report.sessions.map((s) => s.cost),
    );
    for (const problem of report.problems) io.stderr.write(`talaria usage: ${problem}\n`);
    if (flag(p, 'json')) {
      io.stdout.write(
        `${JSON.stringify({ v: 1, by, groups, total, sessions: report.sessions, problems: report.problems })}\n`,
      );
    } else if (flag(p, 'csv')) {
      io.stdout.write(csv(by, groups));
    } else {
      io.stdout.write(table(by, groups, total));
    }
    return EXIT.OK;
  } finally {
    await h.close();
  }
}

function totalOf(
  groups: readonly UsageGroup[],
  costs: Parameters<typeof addCosts>[0],
): { sessions: number; tokens: UsageTokens; cost: CostTotal } {
  const tokens: UsageTokens = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, total: 0 };
  let sessions = 0;
  for (const g of groups) {
    sessions += g.sessions;
    for (const k of Object.keys(tokens) as Array<keyof UsageTokens>) tokens[k] += g.tokens[k];
  }
  return { sessions, tokens, cost: addCosts(costs) };
}

const CSV_COLUMNS = [
  'sessions',
  'input_tokens',
  'output_tokens',
  'cache_read_tokens',
  'cache_write_tokens',
  'reasoning_tokens',
  'total_tokens',
  'cost_usd',
  'cost_status',
  'unpriced_sessions',
];

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}

function csv(by: UsageBy, groups: readonly UsageGroup[]): string {
  const lines = [[by, ...CSV_COLUMNS].join(',')];
  for (const g of groups) {
    const t = g.tokens;
    const usd = g.cost.status === 'unknown' || g.cost.usd === undefined ? '' : String(g.cost.usd);
    lines.push(
      [
        csvField(g.key),
        g.sessions,
        t.input,
        t.output,
        t.cacheRead,
        t.cacheWrite,
        t.reasoning,
        t.total,
        usd,
        g.cost.status,
        g.cost.unpriced,
      ].join(','),
    );
  }
  return `${lines.join('\n')}\n`;
}

function table(
  by: UsageBy,
  groups: readonly UsageGroup[],
  total: { sessions: number; tokens: UsageTokens; cost: CostTotal },
): string {
  if (groups.length === 0) return 'No stored sessions.\n';
  const head = [by.toUpperCase(), 'SESSIONS', 'INPUT', 'OUTPUT', 'TOTAL', 'COST'];
  const row = (key: string, sessions: number, t: UsageTokens, c: CostTotal) => [
    key,
    String(sessions),
    t.input.toLocaleString('en-US'),
    t.output.toLocaleString('en-US'),
    t.total.toLocaleString('en-US'),
    formatCostTotal(c),
  ];
  const rows = [
    head,
    ...groups.map((g) => row(g.key, g.sessions, g.tokens, g.cost)),
    row('total', total.sessions, total.tokens, total.cost),
  ];
  const widths = head.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]) =>
    r
      .map((c, i) => (i === 0 || i === r.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${rows.map(fmt).join('\n')}\n`;
}
