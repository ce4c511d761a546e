/** `talaria replay FILE`: a recorded wire log through the session core → Markdown or NDJSON. */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { SessionEvent } from '../../session/events.js';
import { replayWireLogText } from '../../session/replay.js';
import { hooksForAgent } from '../../providers/quirks/index.js';
import { createThread, reduce, toMarkdown } from '../../thread/index.js';
import { parse, str, flag, choice, UsageError } from '../args.js';
import { APPROVE_MODES, permissionConfig } from '../approve.js';
import { EXIT, exitCodeFor } from '../exit-codes.js';
import { REPLAY_HELP } from '../help.js';
import { NdjsonWriter } from '../ndjson.js';
import type { CliContext } from './common.js';

const OPTIONS = {
  ndjson: { type: 'boolean' },
  session: { type: 'string' },
  approve: { type: 'string' },
} as const;

export async function replayCommand(argv: string[], ctx: CliContext): Promise<number> {
  const { io } = ctx;
  const p = parse('replay', argv, OPTIONS);
  if (flag(p, 'help')) {
    io.stdout.write(`${REPLAY_HELP}\n`);
    return EXIT.OK;
  }
  if (p.positionals.length !== 1)
    throw new UsageError(`replay: ${p.positionals.length === 0 ? 'missing FILE' : 'give exactly one FILE'}`);
  const file = p.positionals[0]!;
  const only = str(p, 'session');
  const approve = choice('replay', 'approve', str(p, 'approve'), APPROVE_MODES, 'ask');
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `replay: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }

  const writer = flag(p, 'ndjson') ? new NdjsonWriter((line) => void io.stdout.write(line)) : undefined;
  let started = false;
  const onEvent = (e: SessionEvent) => {
    if (!writer || (only !== undefined && e.sessionId !== only)) return;
    if (!started) {
      // The run.started line a live run prints once its session exists.
      writer.started(e.sessionId, { source: basename(file) }, e.at);
      started = true;
    }
    writer.event(e);
  };
  // The agent that produced the log (its initialize answer) decides the quirk hooks, as it would live.
  const r = await replayWireLogText(text, { onEvent, permission: permissionConfig(approve), hooksForAgent });
  const lineCount = text.split('\n').filter((l) => l.trim() !== '').length;
  if (lineCount === r.notes.filter((n) => n.code === 'bad_line').length) {
    throw new UsageError(`replay: ${file} is not a wire log (one {"t_ms","dir","msg"} per line)`);
  }
  for (const n of r.notes)
    io.stderr.write(
      `replay: ${n.line > 0 ? `line ${n.line}: ` : ''}${n.message}${n.code === 'bad_line' ? ' (skipped)' : ''}\n`,
    );
  const sessions = only === undefined ? r.sessions : r.sessions.filter((s) => s.id === only);
  if (only !== undefined && sessions.length === 0) throw new UsageError(`replay: no session ${only} in ${file}`);

  if (writer) {
    const sid = sessions[0]?.id ?? null;
    if (!started) writer.started(sid, { source: basename(file) }, 0);
    const last = [...r.turns]
      .reverse()
      .find((t) => only === undefined || sessions.some((s) => s.thread.entries.some((e) => e.turnId === t.turnId)));
    const stop = last?.stopReason ?? (sessions.length === 0 ? 'error' : 'end_turn');
    const failed = sessions.length === 0 ? r.notes.find((n) => n.code === 'session_setup_failed') : undefined;
    writer.ended(
      sid,
      {
        stopReason: stop,
        exitCode: sessions.length === 0 ? EXIT.NOT_READY : exitCodeFor(stop),
        ...(last?.usage ? { usage: last.usage } : {}),
        ...(last?.error
          ? { error: last.error }
          : failed
            ? { error: { code: 'not_ready', message: failed.message } }
            : {}),
      },
      r.endMs,
    );
    return EXIT.OK;
  }

  if (sessions.length === 0) {
    // Nothing opened (e.g. session/new failed): say so as a thread with the failure in it.
    const t = createThread();
    const why = r.notes.filter((n) => n.code === 'session_setup_failed').map((n) => n.message);
    reduce(t, {
      type: 'notice',
      level: 'error',
      code: 'no_session',
      text: why.length ? why.join('; ') : 'the log opens no session',
    });
    io.stdout.write(toMarkdown(t, { title: `Replay of ${basename(file)}` }));
    return EXIT.OK;
  }
  const docs = sessions.map((s) =>
    toMarkdown(s.thread, sessions.length > 1 ? { title: `${s.thread.title ?? 'Thread'} (session ${s.id})` } : {}),
  );
  io.stdout.write(docs.join('\n'));
  return EXIT.OK;
}
