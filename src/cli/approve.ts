/**
 * `--approve ask|edits|all|none` → the permission policy the client runs with, and what happens
 * to requests the policy still asks about (sensitive paths and dangerous commands always ask):
 * a question on the terminal when there is one, otherwise a rejection (fail closed).
 */
import { createInterface, type Interface } from 'node:readline';
import type { PermissionAnswer, PermissionMode, PermissionRule } from '../permission/types.js';
import type { EventOf, SessionEvent } from '../session/events.js';
import type { Entry, ToolCallEntry } from '../thread/types.js';
import type { CliIo } from './io.js';
import { diffLines } from './render/cards.js';
import { createStyle } from './render/style.js';
import { colorEnabled } from './io.js';

export const APPROVE_MODES = ['ask', 'edits', 'all', 'none'] as const;
export type ApproveMode = (typeof APPROVE_MODES)[number];

/** The rule behind `--approve none`: a deny rule wins over everything, sensitive paths included. */
export const DENY_ALL: PermissionRule = { id: 'cli-approve-none', decision: 'deny', source: 'user' };

export function permissionConfig(mode: ApproveMode): { mode: PermissionMode; rules: PermissionRule[] } {
  switch (mode) {
    case 'edits':
      return { mode: 'accept-edits', rules: [] };
    case 'all':
      return { mode: 'auto', rules: [] };
    case 'none':
      return { mode: 'ask', rules: [DENY_ALL] };
    default:
      return { mode: 'ask', rules: [] };
  }
}

export type Ask = EventOf<'permission.asked'>;

/** Maps a typed answer (y, yes, a, always, n, no, reject…) onto an intent; undefined = not understood. */
export function parseAnswer(text: string): PermissionAnswer | undefined {
  const t = text.trim().toLowerCase();
  if (['y', 'yes', 'o', 'once', 'allow'].includes(t)) return { choice: 'allow_once' };
  if (['a', 'always'].includes(t)) return { choice: 'allow_always' };
  if (['n', 'no', 'r', 'reject', 'deny'].includes(t)) return { choice: 'reject_once' };
  return undefined;
}

export function askTitle(ask: Ask): string {
  const subject = ask.subject as { command?: string; paths?: string[] } | undefined;
  return ask.title ?? subject?.command ?? subject?.paths?.[0] ?? ask.toolCallId;
}

/**
 * Asks one permission question on the terminal (stderr) until a y/a/n answer is typed. Returns
 * the readline interface: closing it withdraws the question (the ask was settled elsewhere).
 */
export function askOnTerminal(
  io: CliIo,
  ask: Ask,
  onAnswer: (answer: PermissionAnswer) => void,
  onInterrupt?: () => void,
): Interface {
  const rl = createInterface({ input: io.stdin, output: io.stderr as NodeJS.WritableStream, terminal: true });
  // The terminal is in raw mode while we ask: Ctrl-C arrives here, not as a signal.
  rl.on('SIGINT', () => {
    io.stderr.write('\n');
    rl.close();
    onInterrupt?.();
  });
  const question = () =>
    rl.question(`Permission: ${askTitle(ask)} — allow? [y]es once / [a]lways / [n]o: `, (text) => {
      const answer = parseAnswer(text);
      if (!answer) return question();
      onAnswer(answer);
    });
  question();
  return rl;
}

/** Where a run's asks are answered: its session in this process, or a server's API. */
export interface AskDoor {
  /** The thread the asks belong to (for the diff shown before a question). */
  entries(): readonly Entry[];
  /** Whether the ask still waits for an answer (it may have been settled while queued here). */
  pending(requestKey: string): boolean;
  answer(ask: Ask, answer: PermissionAnswer): void;
  /** No terminal to ask on: the ask is rejected. */
  reject(ask: Ask): void;
}

/**
 * Answers the asks of a one-shot run, fed the run's events: on a terminal (stdin and stderr are
 * TTYs and stdin is not the prompt) one question at a time on stderr; otherwise each ask is
 * rejected with a note. `close` withdraws a question still open.
 */
export function answerAsksForRun(
  io: CliIo,
  door: AskDoor,
  opts: { interactive: boolean; note: (text: string) => void; onInterrupt?: () => void; beforeAsk?: () => void },
): { handle(e: SessionEvent): void; close(): void } {
  const queue: Ask[] = [];
  const settled = new Set<string>();
  let current: { key: string; rl: Interface } | undefined;
  const next = (): void => {
    const ask = queue.shift();
    if (!ask) return;
    if (settled.has(ask.requestKey) || !door.pending(ask.requestKey)) return next();
    opts.beforeAsk?.(); // the answer's open line ends before the question (one terminal)
    // What is being approved: the call's diffs, before the question.
    for (const l of approvalDiff(door.entries(), ask, io)) io.stderr.write(`${l}\n`);
    current = {
      key: ask.requestKey,
      rl: askOnTerminal(io, ask, (answer) => door.answer(ask, answer), opts.onInterrupt),
    };
  };
  return {
    handle(e) {
      if (e.type === 'permission.decided') {
        settled.add(e.requestKey);
        // Answered here, or settled elsewhere (cancel, timeout, the web UI): stop asking, go on with the next.
        if (current?.key !== e.requestKey) return;
        current.rl.close();
        current = undefined;
        return next();
      }
      if (e.type !== 'permission.asked') return;
      if (!opts.interactive) {
        opts.note(
          `permission asked for "${askTitle(e)}": rejected (no terminal to ask on; pass --approve to decide ahead)`,
        );
        return door.reject(e);
      }
      queue.push(e);
      if (!current) next();
    },
    close() {
      current?.rl.close();
      current = undefined;
    },
  };
}

/** The diffs of the tool call an ask concerns (the call the thread attached it to), as card lines. */
export function approvalDiff(entries: readonly Entry[], ask: Ask, io?: CliIo): string[] {
  const calls = entries.filter((e): e is ToolCallEntry => e.kind === 'tool_call');
  const call =
    calls.find((e) => e.toolCallId === ask.toolCallId) ??
    [...calls].reverse().find((e) => e.permission?.status === 'pending');
  const style = createStyle(io ? colorEnabled(io.stderr, io.env) : false);
  const out: string[] = [];
  for (const c of call?.content ?? []) {
    const d = c as { type?: string; path?: string; oldText?: string | null; newText?: unknown };
    if (d.type === 'diff' && typeof d.newText === 'string')
      for (const l of diffLines(d.path ?? 'file', d.oldText ?? null, d.newText, style, 40)) out.push(`  ${l}`);
  }
  return out;
}
