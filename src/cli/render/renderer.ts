/**
 * Session events → terminal lines, with no I/O: the chat loop writes what this returns.
 *
 * Output has two parts. Committed lines are final and scroll up (finished text lines, settled
 * tool cards, permission questions, turn summaries). The live region is redrawn in place below
 * them on a TTY: the line being streamed, open tool cards with a spinner, the plan while a turn
 * runs, and the status line (state, queue, model, mode, context meter). Without a TTY (`live`
 * false) there is no live region: partial lines wait for their newline, cards are committed
 * when they start and when they settle, the plan when the turn ends.
 */
import type { SessionEvent } from '../../session/events.js';
import type { Catalog } from '../../session/catalog.js';
import type { TurnUsage } from '../../session/usage.js';
import type { Entry, PlanEntry, ToolCallEntry } from '../../thread/types.js';
import { isSettled, toolCard, cardHeader } from './cards.js';
import { statusLine } from './meter.js';
import { planLines, turnSummary } from './summary.js';
import type { Style } from './style.js';
import type { MarkdownRenderer } from './markdown.js';
import { unprinted } from './delta.js';
import { sanitize, wrap } from './width.js';

export interface RendererOptions {
  style: Style;
  /** A TTY we can redraw on. */
  live: boolean;
  /** Most lines per diff / output body. */
  maxCardLines?: number;
  /** Renders the agent's answers as Markdown, block by block (the live chat on a TTY). */
  markdown?: MarkdownRenderer;
  /** The terminal's width (Markdown reflow, wrapping of the line still streaming). */
  columns?: () => number;
}

/** Rows of the block still streaming shown in the live region (the rest scrolls in when it is done). */
const LIVE_TEXT_ROWS = 6;

type StreamKind = 'assistant_message' | 'thought';
const SPIN = ['◐', '◓', '◑', '◒'];
const MAX_OPEN_CARDS = 6;

export class ChatRenderer {
  private readonly style: Style;
  private readonly live: boolean;
  private readonly maxCardLines: number;
  private out: string[] = [];
  private lastBlank = true;
  private readonly printed = new Map<string, number>();
  private partial: { id: string; kind: StreamKind; text: string; lines: number } | null = null;
  private readonly open = new Map<string, ToolCallEntry>();
  private readonly announced = new Set<string>();
  private readonly settled = new Set<string>();
  /** Per card: the content items already printed (a diff shown with its question is not repeated). */
  private readonly shown = new Map<string, Set<string>>();
  private readonly queuedTurns = new Set<string>();
  private plan: PlanEntry[] | null = null;
  private planDirty = false;
  private frame = 0;
  state = 'idle';
  model?: string;
  mode?: string;
  context: { used?: number; size?: number } = {};
  lastUsage?: TurnUsage;
  /** The session's cost for the status line (set by the chat after each turn). */
  private cost: string | undefined;
  setCost(cost: string | undefined): void {
    this.cost = cost;
  }
  commands: { name: string; description?: string }[] = [];

  private md: MarkdownRenderer | undefined;
  private readonly columns: () => number;

  constructor(o: RendererOptions) {
    this.style = o.style;
    this.live = o.live;
    this.maxCardLines = o.maxCardLines ?? 12;
    this.md = o.live ? o.markdown : undefined;
    this.columns = o.columns ?? (() => 80);
  }

  get queued(): number {
    return this.queuedTurns.size;
  }

  /** Renders answers as Markdown from now on (live only; loaded lazily by the chat). */
  useMarkdown(md: MarkdownRenderer): void {
    if (this.live) this.md = md;
  }

  /** Lines committed since the last call (final; print them once). */
  takeCommitted(): string[] {
    const lines = this.out;
    this.out = [];
    return lines;
  }

  /**
   * The history shown when a session opens is whole: its last answer is not streaming (no turn
   * end follows it to say so), so it is committed rather than kept live, where only its last rows
   * show (how many chunks that cut off depended on the terminal's width).
   */
  historyShown(): void {
    if (this.state === 'running' || this.state === 'cancelling') return;
    if (this.partial) {
      this.flushPartial();
      this.gap();
    }
  }

  /** Advances the spinner (the chat loop calls it on a timer while a turn runs). */
  tick(): void {
    this.frame++;
  }

  /** A line from the CLI itself (slash command output, hints, errors). */
  note(text: string, level: 'info' | 'warning' | 'error' = 'info'): void {
    this.flushPartial();
    const s = this.style;
    for (const l of sanitize(text).split('\n'))
      this.commit(level === 'error' ? s.red(l) : level === 'warning' ? s.yellow(l) : s.dim(l));
  }

  /** Lines the CLI already styled (lists, tables): committed as they are. */
  styled(lines: string[]): void {
    this.flushPartial();
    for (const l of lines) this.commit(l);
  }

  handle(ev: SessionEvent): void {
    switch (ev.type) {
      case 'entry.added':
      case 'entry.updated':
        return this.entry(ev.entry as Entry, ev.type === 'entry.updated' ? ev.appended : undefined);
      case 'plan.updated':
        this.plan = ev.plan as PlanEntry[] | null;
        this.planDirty = true;
        return;
      case 'session.state':
        this.state = ev.state;
        if (ev.state === 'failed') this.note('The agent connection was lost; this session cannot continue.', 'error');
        return;
      case 'turn.queued':
        this.queuedTurns.add(ev.turnId);
        if (!this.live) this.note(`(queued; ${this.queued} waiting)`);
        return;
      case 'turn.started':
        this.queuedTurns.delete(ev.turnId);
        // A new turn starts without the last one's plan (the agent sends its own when it has one).
        this.plan = null;
        this.planDirty = false;
        return;
      case 'turn.ended':
        this.queuedTurns.delete(ev.turnId);
        return this.turnEnded(ev);
      case 'catalog.updated':
        return this.catalog(ev.catalog as Catalog);
      case 'mode.updated':
        this.mode = ev.modeId;
        return;
      case 'context.updated':
        this.context = ev.context as { used?: number; size?: number };
        return;
      case 'commands.updated':
        this.commands = (ev.commands as { name?: unknown; description?: unknown }[])
          .filter((c) => typeof c?.name === 'string')
          .map((c) => ({
            name: c.name as string,
            ...(typeof c.description === 'string' ? { description: c.description } : {}),
          }));
        return;
      case 'permission.asked':
        return this.asked(ev.toolCallId, ev.title);
      case 'permission.decided': {
        if (ev.decidedBy === 'user') return; // the person just answered; the card shows it
        const o = ev.outcome as { outcome?: string };
        const what = o?.outcome === 'selected' ? 'answered' : 'cancelled';
        this.note(`  ↳ permission ${what} (${ev.decidedBy}): ${ev.reason}`);
        return;
      }
      default:
        return;
    }
  }

  /** The live region (empty without a TTY). */
  liveLines(): string[] {
    if (!this.live) return [];
    const s = this.style;
    const spin = SPIN[this.frame % SPIN.length]!;
    const lines: string[] = [];
    if (this.partial && this.partial.text !== '') {
      // The block still arriving, raw and wrapped; only its last rows (it scrolls in when done).
      const width = Math.max(20, this.columns() - 3);
      const rows = this.partial.text
        .replace(/\n+$/, '')
        .split('\n')
        .flatMap((l) => wrap(l, width));
      for (const r of rows.slice(-LIVE_TEXT_ROWS)) lines.push(this.format(this.partial.kind, r));
    }
    const open = [...this.open.values()];
    // A card waiting for permission is already shown above, with its question.
    for (const e of open.filter((x) => x.permission?.status !== 'pending').slice(-MAX_OPEN_CARDS))
      lines.push(cardHeader(e, s, spin));
    if (open.length > MAX_OPEN_CARDS) lines.push(s.dim(`  … ${open.length - MAX_OPEN_CARDS} more running`));
    const busy = this.state === 'running' || this.state === 'cancelling';
    if (busy && this.plan && this.plan.length > 0) lines.push(...planLines(this.plan ?? [], this.style));
    const status: Parameters<typeof statusLine>[0] = {
      state: this.state,
      spin,
      context: this.context,
      queued: this.queued,
    };
    if (this.model) status.model = this.model;
    if (this.mode) status.mode = this.mode;
    if (this.lastUsage) status.lastUsage = this.lastUsage;
    if (this.cost) status.cost = this.cost;
    lines.push(statusLine(status, s));
    return lines;
  }

  // ---- internals -------------------------------------------------------------------------------

  private commit(line: string): void {
    const blank = line.trim() === '';
    if (blank && this.lastBlank) return; // one blank line between blocks, never more
    this.out.push(line);
    this.lastBlank = blank;
  }

  private gap(): void {
    this.commit('');
  }

  private format(kind: StreamKind, line: string): string {
    return kind === 'thought' ? this.style.dim(this.style.italic(`┊ ${line}`)) : line;
  }

  private flushPartial(): void {
    const p = this.partial;
    if (!p) return;
    this.partial = null;
    if (p.text === '') return;
    if (this.md && p.kind === 'assistant_message') this.commitMarkdown(p.text);
    else this.commit(this.format(p.kind, p.text));
  }

  private commitMarkdown(text: string): void {
    for (const l of this.md!.render(text, Math.max(20, this.columns() - 1))) this.commit(l);
    this.gap();
  }

  private entry(e: Entry, appended?: string): void {
    switch (e.kind) {
      case 'user_message': {
        if (this.printed.has(e.id)) return;
        this.printed.set(e.id, e.text.length);
        this.flushPartial();
        this.gap();
        const lines = sanitize(e.text).replace(/\s+$/, '').split('\n');
        lines.forEach((l, i) => this.commit(`${this.style.cyan(i === 0 ? '›' : ' ')} ${this.style.bold(l)}`));
        for (const b of e.blocks ?? []) this.commit(this.style.dim(`  [${b.type}]`));
        this.gap();
        return;
      }
      case 'assistant_message':
      case 'thought':
        return this.stream(e.id, e.kind, e.text, appended);
      case 'tool_call':
        return this.toolCall(e);
      case 'notice': {
        this.flushPartial();
        const mark = e.level === 'error' ? '✗' : e.level === 'warning' ? '!' : 'i';
        this.note(`${mark} ${e.text}`, e.level);
        return;
      }
      case 'unknown':
        this.flushPartial();
        this.note(`(agent update '${e.sessionUpdate}' kept in the thread)`);
        return;
    }
  }

  private stream(id: string, kind: StreamKind, text: string, appended?: string): void {
    const done = this.printed.get(id) ?? 0;
    if (text.length <= done) return;
    this.printed.set(id, text.length);
    let delta = sanitize(unprinted(text, done, appended));
    if (this.partial?.id !== id) {
      this.flushPartial();
      this.gap();
      this.partial = { id, kind, text: '', lines: 0 };
    }
    const p = this.partial!;
    // A block starts at its first visible line (Hermes opens post-tool text with "\n\n").
    if (p.lines === 0 && p.text === '') delta = delta.replace(/^(?:[ \t]*\n)+/, '');
    if (this.md && kind === 'assistant_message') {
      // Markdown: finished blocks are rendered and committed, the growing one stays live.
      const { done: finished, rest } = this.md.split(p.text + delta);
      if (finished !== '') {
        this.commitMarkdown(finished);
        p.lines++;
      }
      p.text = rest;
      return;
    }
    const parts = (p.text + delta).split('\n');
    p.text = parts.pop()!;
    for (const l of parts) {
      this.commit(this.format(kind, l));
      p.lines++;
    }
  }

  private toolCall(e: ToolCallEntry): void {
    const id = e.id;
    if (isSettled(e.status)) {
      this.open.delete(id);
      if (this.settled.has(id)) return;
      this.settled.add(id);
      this.flushPartial();
      for (const l of toolCard(e, this.style, { maxLines: this.maxCardLines, body: true, shown: this.shownFor(id) }))
        this.commit(l);
      this.shown.delete(id);
      return;
    }
    this.open.set(id, e);
    if (!this.live && !this.announced.has(id)) {
      this.announced.add(id);
      this.flushPartial();
      this.commit(cardHeader(e, this.style));
    }
  }

  private shownFor(id: string): Set<string> {
    let set = this.shown.get(id);
    if (!set) this.shown.set(id, (set = new Set()));
    return set;
  }

  private asked(toolCallId: string, title?: string): void {
    this.flushPartial();
    // The request may name its own id while the thread attached it to the call it concerns (Hermes).
    const open = [...this.open.values()];
    const e =
      open.find((x) => x.toolCallId === toolCallId) ?? open.reverse().find((x) => x.permission?.status === 'pending');
    if (e)
      for (const l of toolCard(e, this.style, { maxLines: this.maxCardLines, body: true, shown: this.shownFor(e.id) }))
        this.commit(l);
    const s = this.style;
    this.commit(`${s.yellow('?')} ${s.bold(`Permission needed: ${sanitize(title ?? e?.title ?? toolCallId)}`)}`);
    this.commit(
      s.dim(
        this.live
          ? '  press y = allow once, a = always allow, n = reject'
          : '  answer y = allow once, a = always allow, n = reject',
      ),
    );
  }

  private turnEnded(ev: Extract<SessionEvent, { type: 'turn.ended' }>): void {
    this.flushPartial();
    if (this.planDirty && this.plan && this.plan.length > 0) {
      this.gap();
      for (const l of planLines(this.plan ?? [], this.style)) this.commit(l);
    }
    this.planDirty = false;
    if (ev.usage) this.lastUsage = ev.usage;
    this.gap();
    for (const l of turnSummary(ev, this.style)) this.commit(l);
    this.gap();
  }

  private catalog(c: Catalog): void {
    // Ids, not labels: the status line is narrow and the ids are what /model and /mode take.
    if (c.model?.currentId) this.model = c.model.currentId;
    if (c.mode?.currentId) this.mode = c.mode.currentId;
  }
}
