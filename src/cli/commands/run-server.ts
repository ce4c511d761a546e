/**
 * `talaria run` through a running `talaria serve` (issue 16): the server's warm agent answers,
 * the session is a normal server session (the web UI lists it). This file is only the run's
 * event source — the server's stream folded into a mirror of the thread, turned into the
 * SessionEvents the local session emits — and its permission answers; what is printed and the
 * exit code are run-output.ts's, as for a local run. Anything that fails before the session
 * exists sends the run back to the local harness ('fallback'), which then says what is wrong in
 * its own words.
 */
import { applyEvent, connectServer } from '../../server/client/index.js';
import type { SessionSnapshot, StreamEvent } from '../../server/contract/index.js';
import type { SessionEvent } from '../../session/events.js';
import type { TurnResult } from '../../session/turn.js';
import type { Entry, Thread } from '../../thread/types.js';
import { answerAsksForRun, type ApproveMode } from '../approve.js';
import type { PermissionAnswer } from '../../permission/types.js';
import { EXIT } from '../exit-codes.js';
import { DEMO_BANNER, DEMO_NOTE } from '../runtime-types.js';
import { nodeFetch } from '../node-fetch.js';
import type { ServerDiscovery } from '../server-discovery.js';
import type { CliContext } from './common.js';
import { interactiveRun, type RunArgs } from './run-options.js';
import type { RunEnd, RunOutput } from './run-output.js';
import { RunSignals } from './run-signals.js';
import { streamFeed } from './run-server-feeds.js';
import { runTrace } from '../run-trace.js';
import { TurnWatch } from '../../server/contract/turn-watch.js';

/** The permission mode a new server session gets for `--approve` ('ask' is the server's default: left out, so a warm spare fits). */
const MODE: Partial<Record<ApproveMode, string>> = { edits: 'accept-edits', all: 'auto' };

type Ended = Extract<StreamEvent, { type: 'turn.ended' }>;

export async function runOnServer(
  found: ServerDiscovery,
  args: RunArgs,
  prompt: string,
  out: RunOutput,
  ctx: Pick<CliContext, 'io' | 'onInterrupt' | 'onTerminate'>,
): Promise<number | 'fallback'> {
  const { io } = ctx;
  const { a } = args;
  const verbose = (text: string) => (a.verbose ? out.note(`talaria run: ${text}`) : undefined);
  const trace = runTrace(io);
  // Answers to asks and the cancel go over plain HTTP; the events come from the feed.
  const client = connectServer(found.url, found.token, { fetch: nodeFetch });
  // Signals first: a Ctrl-C or SIGTERM from here on is this run's, never the default kill (which
  // would leave the prompt queued on the server). Until the turn is set up it is remembered.
  const signals = new RunSignals(ctx, out.warn);
  trace('loaded');

  // ---- setup: any failure before a prompt was sent runs the turn locally instead ----
  const profile = a.choice.profile !== undefined ? { profile: a.choice.profile } : {};
  const mode = MODE[args.approve];
  const setup = await Promise.race([
    streamFeed(
      found,
      args.session !== undefined
        ? { session: args.session, text: prompt, ...profile }
        : {
            path: a.cwd,
            text: prompt,
            ...(a.choice.agent !== undefined ? { provider: a.choice.agent } : {}),
            ...profile,
            ...(mode ? { permissionMode: mode } : {}),
          },
    ),
    signals.forced,
  ]);
  if (setup === 'forced' || 'fallback' in setup || 'failed' in setup) signals.off();
  if (setup === 'forced') {
    out.note('talaria run: quit before the turn ended');
    return EXIT.CANCELLED;
  }
  if ('fallback' in setup) {
    // Interrupted before the server took the prompt: nothing to cancel, and nothing to run locally either.
    if (signals.interrupts > 0 || signals.terminated) return EXIT.CANCELLED;
    verbose(`${setup.fallback}; running locally`);
    return 'fallback';
  }
  if ('failed' in setup) {
    out.note(out.errStyle.red(`talaria run: the server did not take the prompt: ${setup.failed}`));
    return EXIT.AGENT_ERROR;
  }
  const feed = setup;
  let snap: SessionSnapshot = feed.snap;
  trace('session');
  const sessionId = snap.session.id;
  verbose(`using the server at ${found.url} (session ${sessionId})`);

  // ---- the stream: the same events the local session emits, folded into a mirror of the thread ----
  const provider = snap.session.provider;
  if (a.choice.agent === 'demo') out.warn(DEMO_NOTE);
  else if (args.session === undefined && a.choice.agent === undefined && provider === 'demo') out.warn(DEMO_BANNER);
  const watch = new TurnWatch();
  watch.sent(feed.sent);
  const cancelTurn = () => void client.api.cancel({ params: { id: sessionId } }).catch(() => undefined);
  /** The run's prompt was still queued at the cancel and started before it was removed: cancel it once known. */
  let cancelOnStart = false;
  // A signal that came while the prompt was being sent is acted on now that there is a turn to cancel.
  signals.armed(() => {
    const queued = watch.queuedId;
    if (queued === undefined) return cancelTurn();
    // Still queued: only this run's prompt leaves the queue (the running turn is someone else's).
    void client.api.removeQueued({ params: { id: sessionId, item: queued } }).catch(() => {
      if (watch.turnId !== undefined) cancelTurn();
      else cancelOnStart = true;
    });
  });
  const answer = (key: string, body: { optionId: string } | { cancel: true }) =>
    // A conflict (answered elsewhere first, e.g. in the web UI) is not an error: first answer wins.
    void client.api.answerPermission({ params: { id: sessionId, requestKey: key }, body }).catch(() => undefined);
  const asks = answerAsksForRun(
    io,
    {
      entries: () => snap.thread.entries as Entry[],
      // Settled asks are the stream's `permission.decided` (answerAsksForRun keeps them).
      pending: () => true,
      answer: (ask, picked) => {
        const optionId = optionFor(ask.options, picked);
        answer(ask.requestKey, optionId ? { optionId } : { cancel: true });
      },
      reject: (ask) => answer(ask.requestKey, { cancel: true }),
    },
    { interactive: interactiveRun(args, io), note: out.warn, onInterrupt: signals.interrupt, beforeAsk: out.breakLine },
  );

  let over!: (how: Ended | 'removed') => void;
  const ended = new Promise<Ended | 'removed'>((r) => (over = r));
  const check = () => {
    if (cancelOnStart && watch.turnId !== undefined) {
      cancelOnStart = false;
      cancelTurn();
    }
    if (watch.end) over(watch.end);
    else if (watch.removedSeq !== undefined) over('removed');
  };
  /**
   * Whether an event is this run's to print and answer: its turn's entries, and anything else
   * while its turn runs. A queued run's session is running someone else's turn first: that turn's
   * text is not this run's answer, and its permission asks are not this terminal's to answer.
   */
  const mine = (e: StreamEvent): boolean => {
    const turnId = watch.turnId;
    if (turnId === undefined) return false;
    if (e.type === 'entry.added' || e.type === 'entry.updated' || e.type === 'entry.appended')
      return (snap.thread.entries[e.index] as Entry | undefined)?.turnId === turnId;
    return watch.end === undefined || e === watch.end;
  };
  let traced = false;
  out.begin();
  feed.start({
    onSnapshot: (x, serverTurnId) => {
      snap = x;
      // A queued prompt that started inside the gap: only the server saw which turn is ours.
      watch.gap(x, serverTurnId);
      // The stream fell behind further than the server's log reaches: the events in between are
      // gone, so the printer takes what it missed of this turn from the snapshot.
      const turnId = watch.turnId;
      if (turnId !== undefined) for (const ev of missedByPrinter(x, turnId)) out.event(ev);
      check();
    },
    onEvent: (e) => {
      if (!traced) traced = (trace('first-event'), true);
      applyEvent(snap, e);
      watch.see(e);
      if (mine(e)) {
        const ev = toSessionEvent(e, snap);
        asks.handle(ev);
        out.event(ev);
      }
      check();
    },
  });

  // ---- the turn ----
  const outcome = await Promise.race([ended, signals.forced, feed.closed]);
  trace('ended');
  // The agent session id as it is now: an overflow reseed during the turn gives a new one, which
  // no stream event carries (read once, only for the --json report).
  const current = args.json
    ? await client.api
        .snapshot({ params: { id: sessionId } })
        .then((x) => x.snapshot.session.agentSessionId)
        .catch(() => undefined)
    : undefined;
  const ids = { sessionId, agentSessionId: current ?? snap.session.agentSessionId ?? '' };
  const end: RunEnd =
    typeof outcome === 'string'
      ? { stopped: outcome, turnId: watch.turnId ?? '', durationMs: 0 }
      : {
          result: {
            turnId: outcome.turnId,
            stopReason: outcome.stopReason,
            durationMs: outcome.durationMs,
            ...(outcome.usage ? { usage: outcome.usage as TurnResult['usage'] } : {}),
            ...(outcome.error ? { error: outcome.error as TurnResult['error'] } : {}),
          } as TurnResult,
        };
  const code = out.end(end, ids, snap.thread as unknown as Thread);
  asks.close();
  signals.off();
  feed.close();
  return code;
}

type Option = { optionId?: string; kind?: string };

/** The offered option for a typed intent; undefined for a rejection nobody offered (answered as a cancel). */
export function optionFor(options: readonly unknown[], answer: PermissionAnswer): string | undefined {
  const choice = (answer as { choice?: string }).choice;
  const wanted =
    choice === 'allow_always'
      ? ['allow_always', 'allow_once']
      : choice === 'allow_once'
        ? ['allow_once']
        : ['reject_once', 'reject_always'];
  for (const k of wanted) {
    const o = (options as Option[]).find((x) => x.kind === k);
    if (o?.optionId) return o.optionId;
  }
  return undefined;
}

/**
 * A turn's messages and tool calls in a snapshot, as the events that would have shown them. The
 * printer prints only what it has not (a message's text past what it printed, a tool call not yet
 * settled on screen), so after a gap the answer on the terminal goes on where it stopped.
 */
export function missedByPrinter(snap: SessionSnapshot, turnId: string): SessionEvent[] {
  const out: SessionEvent[] = [];
  (snap.thread.entries as Entry[]).forEach((entry, index) => {
    if (entry.turnId !== turnId || (entry.kind !== 'assistant_message' && entry.kind !== 'tool_call')) return;
    out.push({
      type: 'entry.updated',
      sessionId: snap.session.id,
      seq: 0,
      at: 0,
      index,
      entry,
    } as unknown as SessionEvent);
  });
  return out;
}

/** The stream's compact `entry.appended` is the bus's `entry.updated` with the whole entry (what the printer reads). */
function toSessionEvent(e: StreamEvent, snap: SessionSnapshot): SessionEvent {
  if (e.type === 'entry.appended')
    return {
      ...e,
      type: 'entry.updated',
      entry: snap.thread.entries[e.index],
      appended: e.text,
    } as unknown as SessionEvent;
  return e as unknown as SessionEvent;
}
