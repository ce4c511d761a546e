/**
 * `talaria hermes sessions [list|show|continue]`: Hermes sessions from its other channels (the CLI,
 * telegram, discord, …), which ACP's session/list never shows — read-only from Hermes' state.db,
 * and continued as a new Talaria session seeded from the transcript.
 */
import { resolve } from 'node:path';
import {
  continueHermesChannelSession,
  hermesChannelSession,
  hermesChannelSessions,
} from '../../harness/hermes-channels.js';
import type { ChannelSession } from '../../providers/hermes/channel-sessions.js';
import type { ChannelMessage } from '../../providers/hermes/channel-transcript.js';
import { formatCost } from '../../providers/hermes/state-db.js';
import { TalariaError } from '../../protocol/errors.js';
import { flag, parse, str, UsageError, type OptionSpec } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { HERMES_HELP } from '../help-admin.js';
import { createProgress } from '../io.js';
import type { CliContext } from './common.js';

const SPECS: Record<string, { options: OptionSpec; args: number }> = {
  list: { options: { profile: { type: 'string' }, source: { type: 'string' }, json: { type: 'boolean' } }, args: 0 },
  show: { options: { profile: { type: 'string' }, json: { type: 'boolean' } }, args: 1 },
  continue: {
    options: {
      profile: { type: 'string' },
      agent: { type: 'string' },
      workspace: { type: 'string' },
      json: { type: 'boolean' },
    },
    args: 1,
  },
};

const n = (v: number) => v.toLocaleString('en-US');
const when = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
const clip = (s: string, max: number) => {
  const one = s.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
};

function sessionLine(s: ChannelSession): string {
  const u = s.usage;
  const tokens = u ? `${n(u.inputTokens)} in · ${n(u.outputTokens)} out · ${formatCost(u.cost)}` : 'no usage';
  const cont = s.continuations.length > 0 ? ` (+${s.continuations.length} continued)` : '';
  return `  ${s.id}  ${s.source.padEnd(9)}  ${when(s.lastActive)}  ${String(s.messageCount).padStart(3)} msgs${cont}  ${tokens}  ${clip(s.title ?? s.preview ?? '', 60)}`;
}

function messageLines(m: ChannelMessage): string[] {
  const t = new Date(m.timestamp).toISOString().slice(11, 19);
  const out: string[] = [];
  if (m.reasoning) out.push(`[${t}] ${m.role} (thinking): ${clip(m.reasoning, 300)}`);
  if (m.role === 'tool') out.push(`[${t}] tool ${m.toolName ?? m.toolCallId ?? ''}: ${clip(m.text, 300)}`);
  else if (m.text.trim() || !m.toolCalls) out.push(`[${t}] ${m.role}: ${m.text}`);
  for (const c of m.toolCalls ?? []) out.push(`[${t}] ${m.role} → ${c.name} ${clip(c.arguments, 200)}`);
  if (m.note) out.push(`[${t}] (${m.note})`);
  return out;
}

export async function hermesSessionsCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const known = argv[0] !== undefined && argv[0] in SPECS;
  const sub = known ? argv[0]! : 'list';
  if (argv[0] === 'help') {
    io.stdout.write(`${HERMES_HELP}\n`);
    return EXIT.OK;
  }
  const p = parse(`hermes sessions ${sub}`, known ? argv.slice(1) : argv, SPECS[sub]!.options);
  if (flag(p, 'help')) {
    io.stdout.write(`${HERMES_HELP}\n`);
    return EXIT.OK;
  }
  const spec = SPECS[sub]!;
  if (p.positionals.length !== spec.args)
    throw new UsageError(
      `hermes sessions ${sub}: ${spec.args === 0 ? `unexpected argument '${p.positionals[0]}'` : p.positionals.length === 0 ? 'missing ID' : 'too many arguments'}`,
    );
  const json = flag(p, 'json');
  const profile = str(p, 'profile');
  const h = ctx.harness();
  try {
    if (sub === 'list') {
      const all = hermesChannelSessions(h.env, {
        ...(profile ? { profile } : {}),
        ...(str(p, 'source') ? { source: str(p, 'source')! } : {}),
      });
      if (json) {
        io.stdout.write(`${JSON.stringify({ v: 1, profiles: all.map((x) => ({ profile: x.profile, ...x.read })) })}\n`);
        return EXIT.OK;
      }
      const lines: string[] = [];
      for (const { profile: name, read } of all) {
        if (read.kind !== 'ok') lines.push(`${name}: ${read.message}`);
        else if (read.sessions.length > 0) lines.push(name, ...read.sessions.map(sessionLine));
        else if (profile) lines.push(`${name}: no Hermes sessions from other channels`);
      }
      if (lines.length === 0) lines.push('No Hermes sessions from other channels (cli, telegram, …).');
      io.stdout.write(`${lines.join('\n')}\n`);
      return EXIT.OK;
    }
    const id = p.positionals[0]!;
    if (sub === 'show') {
      const r = hermesChannelSession(h.env, id, profile);
      if (r.kind === 'not-found') throw new UsageError(`hermes sessions show: ${r.message}`);
      if (r.kind !== 'ok') {
        io.stderr.write(`talaria hermes sessions show: ${r.message}\n`);
        return EXIT.NOT_READY;
      }
      if (json) {
        io.stdout.write(`${JSON.stringify({ v: 1, profile: profile ?? 'default', ...r })}\n`);
        return EXIT.OK;
      }
      const s = r.session;
      const u = s.usage;
      const head = [
        `Hermes session ${s.id} (${s.source}, profile ${profile ?? 'default'})${s.model ? ` · ${s.model}` : ''}${s.cwd ? ` · ${s.cwd}` : ''}`,
        `started ${when(s.startedAt)} UTC · ${s.messageCount} messages${u ? ` · ${n(u.inputTokens)} input / ${n(u.outputTokens)} output tokens · ${formatCost(u.cost)}` : ''}`,
        ...(s.continuations.length > 0 ? [`continued after compression in ${s.continuations.join(' → ')}`] : []),
        `Read-only. Continue it in Talaria: talaria hermes sessions continue ${s.id}${profile ? ` --profile ${profile}` : ''}`,
        '',
      ];
      io.stdout.write(`${[...head, ...r.messages.flatMap(messageLines)].join('\n')}\n`);
      return EXIT.OK;
    }
    const agent = str(p, 'agent');
    if (agent !== undefined && !h.registry.get(agent))
      throw new UsageError(`hermes sessions continue: unknown agent ${agent} (see talaria agents)`);
    const workspace = str(p, 'workspace');
    const progress = createProgress(io.stderr, { tty: io.stderr.isTTY === true, quiet: io.stderr.isTTY !== true });
    progress.step(`Starting ${h.registry.get(agent ?? 'hermes')?.label ?? agent ?? 'Hermes'}…`);
    let res;
    try {
      res = await continueHermesChannelSession(h, {
        id,
        ...(profile ? { profile } : {}),
        ...(agent ? { provider: agent } : {}),
        ...(workspace ? { workspace: resolve(workspace) } : {}),
      });
    } finally {
      progress.done();
    }
    const b = res.session;
    await b.close();
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ v: 1, id: b.id, from: res.from.id, source: res.from.source, provider: b.provider })}\n`,
      );
      return EXIT.OK;
    }
    io.stderr.write(
      `Continued Hermes ${res.from.source} session ${res.from.id} with ${b.provider}; the agent gets the conversation with your next message: talaria run --session ${b.id} "…"\n`,
    );
    io.stdout.write(`${b.id}\n`);
    return EXIT.OK;
  } catch (err) {
    if (err instanceof UsageError) throw err;
    if (err instanceof TalariaError && ['session_not_found', 'invalid_argument'].includes(err.code))
      throw new UsageError(`hermes sessions ${sub}: ${err.message}`);
    if (err instanceof TalariaError) {
      io.stderr.write(`talaria hermes sessions ${sub}: ${err.message}\n`);
      return EXIT.NOT_READY;
    }
    throw err;
  } finally {
    await h.close();
  }
}
