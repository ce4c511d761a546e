/**
 * `talaria sessions branches|rewind|continue`: a conversation's branch tree (issue 14). A branch is
 * an ordinary stored session: continue any of them with `talaria run|chat --session ID`.
 */
import type { BranchNode, Harness, HarnessExtras, HarnessSession } from '../../harness/index.js';
import { userMessageBack } from '../../harness/branches.js';
import { flag, str, UsageError, type Parsed } from '../args.js';
import { EXIT } from '../exit-codes.js';
import { createProgress } from '../io.js';
import type { CliContext } from './common.js';

type H = Harness & HarnessExtras;

function out(ctx: CliContext, text: string): number {
  ctx.io.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
  return EXIT.OK;
}

/** One line per branch, indented by depth; `*` marks the one asked about. */
export function treeLines(node: BranchNode, mark: string, depth = 0, parent?: BranchNode): string[] {
  // Older rows name no fromProvider when it was the same agent: the parent's is the one.
  const from = node.fromProvider ?? parent?.provider;
  const how =
    node.reason === 'rewind'
      ? 'rewind'
      : node.reason === 'fork'
        ? 'fork'
        : node.reason === 'continue'
          ? from
            ? `continued from ${from}`
            : 'continued'
          : 'root';
  const extra =
    node.reseeds > 0 ? `, ${node.reseeds} fresh agent session${node.reseeds > 1 ? 's' : ''} after overflow` : '';
  const line =
    `${'  '.repeat(depth)}${node.id === mark ? '*' : '-'} ${node.id}  ${node.provider}  ${how}${extra}  ${node.title ?? ''}`.trimEnd();
  return [line, ...node.children.flatMap((c) => treeLines(c, mark, depth + 1, node))];
}

export async function branches(p: Parsed, h: H, ctx: CliContext): Promise<number> {
  const row = h.sessions.find(p.positionals[0]!);
  if (!row) throw new UsageError(`sessions branches: no stored session ${p.positionals[0]}`);
  const tree = h.sessions.branches(row.id);
  if (flag(p, 'json')) return out(ctx, JSON.stringify({ v: 1, current: row.id, tree }));
  return out(ctx, treeLines(tree, row.id).join('\n'));
}

async function branchOff(p: Parsed, h: H, ctx: CliContext, kind: 'rewind' | 'continue'): Promise<number> {
  const src = h.sessions.find(p.positionals[0]!);
  if (!src) throw new UsageError(`sessions ${kind}: no stored session ${p.positionals[0]}`);
  let at: string | undefined;
  let provider: string | undefined;
  if (kind === 'rewind') {
    const back = Number(str(p, 'back') ?? '1');
    at = userMessageBack(h.sessions.snapshot(src.id), back, src.id);
  } else {
    provider = str(p, 'agent');
    if (!provider) throw new UsageError('sessions continue: --agent ID is required (the agent to continue with)');
    if (!h.registry.get(provider))
      throw new UsageError(`sessions continue: unknown agent ${provider} (see talaria agents)`);
  }
  const ws = h.workspaces.open(src.workspaceId ? (h.workspaces.get(src.workspaceId)?.path ?? src.cwd) : src.cwd);
  const progress = createProgress(ctx.io.stderr, {
    tty: ctx.io.stderr.isTTY === true,
    quiet: ctx.io.stderr.isTTY !== true,
  });
  progress.step(
    kind === 'rewind' ? `Branching ${src.id}…` : `Starting ${h.registry.get(provider!)?.label ?? provider}…`,
  );
  let b: HarnessSession;
  try {
    b = await ws.branchSession(src.id, { ...(at ? { at } : {}), ...(provider ? { provider } : {}) });
  } finally {
    progress.done();
  }
  await b.close();
  if (flag(p, 'json'))
    return out(
      ctx,
      JSON.stringify({ v: 1, id: b.id, from: src.id, reason: kind, provider: b.provider, ...(at ? { at } : {}) }),
    );
  ctx.io.stderr.write(
    kind === 'rewind'
      ? `Branched ${src.id} before its message #${str(p, 'back') ?? '1'} from the end; send the edited message with: talaria run --session ${b.id} "…"\n`
      : `Continued ${src.id} with ${b.provider}; the agent gets the conversation with your next message: talaria run --session ${b.id} "…"\n`,
  );
  return out(ctx, b.id);
}

export const rewind = (p: Parsed, h: H, ctx: CliContext) => branchOff(p, h, ctx, 'rewind');
export const continueIn = (p: Parsed, h: H, ctx: CliContext) => branchOff(p, h, ctx, 'continue');
