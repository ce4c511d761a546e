/**
 * Cancel leaves no work behind: when a turn is cancelled, the processes the agent started for it
 * are ended too — including those that left the agent's process group (Claude Code runs shell
 * tools under setsid; a cancelled `sleep 45 && echo … > late.txt` used to write its file long
 * after the turn said cancelled). Found by the agent's tag (src/os/proc-tree.ts).
 *
 * What a cancel ends, on the agent process serving the session:
 * - processes of the agent's tree started during the cancelled turn — once when the cancel is
 *   sent (an agent may wait for its tool before it answers) and again when the agent answers
 *   (what it forked meanwhile); SIGTERM, the host's terminate grace, SIGKILL. The turn ends only
 *   after that, so a tool card says cancelled once its processes are gone;
 * - never the agent itself, nor its helpers: processes still in its own process group and still
 *   its descendants. The agent got `session/cancel` and answers for those (and they end with it);
 *   what left the group or lost its parent is what nobody else would ever stop;
 * - never work started before the turn (a dev server from an earlier turn): that ends when the
 *   agent process stops (idle reap, shutdown, exit).
 * One agent process may serve several sessions, and a process does not say which session it is
 * for. So a process started while another session's turn (or any other request) was in flight
 * on the same agent process is not ended: it is reported (`turn.reaped` `left`, and a notice),
 * and ends with the agent process. Ending another session's work would be worse than leaving it.
 */
import { performance } from 'node:perf_hooks';
import {
  bootTicks,
  endTree,
  procSupported,
  scanTree,
  TICKS_PER_SECOND,
  type ProcRow,
  type ReapResult,
  type Selection,
} from '../os/proc-tree.js';
import { isDead, isDying, readProcs } from '../os/proc-scan.js';
import type { SessionBinding } from './binding.js';
import type { Generation } from './generation.js';
import type { SlotPart } from './parts.js';

/** What the reaper reads of its slot. */
type Slot = Pick<SlotPart, 'key' | 'cfg' | 'logger' | 'emit'>;

/** One prompt in flight on a process, as the reaper sees it. */
export interface TurnWork {
  gen: Generation;
  owner: string;
  /** performance.now() when the prompt was sent. */
  from: number;
  cancelled: boolean;
  /** The pass started by the cancel. */
  first?: Promise<ReapResult>;
}

/** The turn's processes as they are now (see the module comment for which). */
function selectTurn(work: TurnWork): Selection {
  const { gen } = work;
  const now = bootTicks();
  if (now === undefined || gen.pid === null || gen.startTicks === undefined) return { doomed: [], left: [] };
  const perf = performance.now();
  const ticks = (ms: number) => Math.floor(now - ((perf - ms) * TICKS_PER_SECOND) / 1000);
  // One tick of slack each way, on the side of leaving a process alone.
  const foreign = gen.ledger
    .foreign(work.owner, work.from)
    .map(([a, b]) => [ticks(a) - 1, b === Infinity ? Infinity : ticks(b) + 1] as const);
  return scanTree({
    tag: gen.tag,
    agentPid: gen.pid,
    agentStart: gen.startTicks,
    turn: { from: ticks(work.from) - 1, foreign },
  });
}

/** Ends the turn's processes; never rejects (a failure here must not fail the turn). */
export async function reapTurn(slot: Slot, work: TurnWork): Promise<ReapResult> {
  try {
    return await endTree(() => selectTurn(work), slot.cfg.terminateGraceMs);
  } catch (e) {
    slot.logger.warn('ending a cancelled turn’s processes failed', { error: String(e) });
    return { ended: [], survived: [], left: [] };
  }
}

/** Called once the agent answered a cancelled prompt: the last pass, then what the user is told. Never rejects. */
export async function afterCancel(slot: Slot, b: SessionBinding, work: TurnWork): Promise<void> {
  try {
    await report(slot, b, work);
  } catch (e) {
    slot.logger.warn('reporting a cancelled turn’s processes failed', { error: String(e) });
  }
}

async function report(slot: Slot, b: SessionBinding, work: TurnWork): Promise<void> {
  const s = b.session;
  const turnId = s.running?.id;
  if (!procSupported()) {
    const hadTools = s.thread.entries.some((e) => e.kind === 'tool_call' && e.turnId === turnId);
    if (hadTools)
      s.notice(
        'info',
        'cancel_unverified',
        'On this system Talaria cannot find processes that left the agent’s process group; a command the agent started may still be running.',
      );
    return;
  }
  const first = (await work.first) ?? { ended: [], survived: [], left: [] };
  await dyingToolsGone(work, slot.cfg.terminateGraceMs);
  const last = await reapTurn(slot, work);
  const ended = unique([...first.ended, ...last.ended].filter((r) => !last.survived.some((x) => x.pid === r.pid)));
  if (ended.length + last.survived.length + last.left.length === 0) return;
  slot.emit('turn.reaped', {
    key: slot.key,
    generation: work.gen.n,
    sessionId: b.id,
    ...(turnId ? { turnId } : {}),
    ended: ended.map((r) => r.pid),
    survived: last.survived.map((r) => r.pid),
    left: last.left.map((r) => r.pid),
  });
  if (last.survived.length) {
    s.notice(
      'warning',
      'cancel_survivors',
      `Cancel could not stop ${count(last.survived)} the agent started (${list(last.survived)}); they may still be running.`,
      {
        pids: last.survived.map((r) => r.pid),
      },
    );
  }
  if (last.left.length) {
    s.notice(
      'warning',
      'cancel_left_running',
      `${cap(count(last.left))} the agent started during this turn ${last.left.length === 1 ? 'was' : 'were'} left running (${list(last.left)}): another session was using the same agent process then, and Talaria cannot tell whose ${last.left.length === 1 ? 'it is' : 'they are'}. They stop when the agent process stops.`,
      { pids: last.left.map((r) => r.pid) },
    );
  }
}

/**
 * The agent answers a cancel as soon as it has signalled its tool; on a busy machine the tool may
 * not have exited yet, and until it has, what it started in the background is still its child —
 * in the agent's group, under the agent: a helper, spared. So the last pass waits (up to the
 * grace) for this turn's processes in the agent's group that are being killed to be gone.
 */
async function dyingToolsGone(work: TurnWork, graceMs: number): Promise<void> {
  const { gen } = work;
  const now = bootTicks();
  if (now === undefined || gen.pid === null) return;
  const from = Math.floor(now - ((performance.now() - work.from) * TICKS_PER_SECOND) / 1000) - 1;
  const dying: number[] = [];
  for (const r of readProcs().values())
    if (r.pgid === gen.pid && r.pid !== gen.pid && r.start >= from && !isDead(r) && isDying(r.pid)) dying.push(r.pid);
  const deadline = performance.now() + graceMs;
  while (dying.some(isDying) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}

function unique(rows: ProcRow[]): ProcRow[] {
  const seen = new Map<number, ProcRow>();
  for (const r of rows) seen.set(r.pid, r);
  return [...seen.values()];
}

const count = (rows: ProcRow[]) => `${rows.length} process${rows.length === 1 ? '' : 'es'}`;
const cap = (t: string) => t[0]!.toUpperCase() + t.slice(1);
// The kernel's short name only (command lines can hold secrets), printable (a process names itself).
const list = (rows: ProcRow[]) =>
  rows
    .slice(0, 8)
    .map((r) => `pid ${r.pid} ${r.comm.replace(/[^\x20-\x7e]/g, '?')}`)
    .join(', ') + (rows.length > 8 ? ', …' : '');
