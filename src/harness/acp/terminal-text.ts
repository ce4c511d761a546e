/**
 * Terminals Talaria runs for the agent, shown to an editor that declared no `terminal` capability:
 * such an editor cannot render `{type: "terminal", terminalId}` content (it never created that
 * terminal), so each one becomes text content with the command's output, sent again as output
 * arrives (at most every THROTTLE_MS) and once more when the command has exited.
 */
import type { TerminalView } from '../../protocol/client-terminal.js';
import type { Session } from '../../session/session.js';

type Content = Record<string, unknown>;
const THROTTLE_MS = 250;

const terminalOf = (c: unknown): string | undefined => {
  const o = c as Content | null;
  return typeof o === 'object' && o !== null && o.type === 'terminal' && typeof o.terminalId === 'string'
    ? o.terminalId
    : undefined;
};

export class TerminalText {
  /** Tool call id → its content as the agent last sent it (with terminal items). */
  private readonly calls = new Map<string, unknown[]>();
  /** Terminal id → stop watching it. */
  private readonly watched = new Map<string, () => void>();
  /** The terminals watched (kept past a release: their output is read once more at exit). */
  private readonly views = new Map<string, TerminalView>();
  /** A terminal's text once it exited (it may be released right after). */
  private readonly final = new Map<string, string>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private disposed = false;

  constructor(
    private readonly session: Session,
    /** Sends a tool_call_update with this content. */
    private readonly send: (toolCallId: string, content: unknown[]) => void,
  ) {}

  /** The content with its terminals as text; undefined when it holds no terminal (then it goes as is). */
  rewrite(toolCallId: string, content: unknown): unknown[] | undefined {
    if (!Array.isArray(content)) return undefined;
    if (!content.some((c) => terminalOf(c) !== undefined)) {
      this.calls.delete(toolCallId); // the agent replaced the terminal: later output no longer belongs here
      return undefined;
    }
    this.calls.set(toolCallId, content);
    for (const c of content) {
      const id = terminalOf(c);
      if (id !== undefined) this.watch(id);
    }
    return this.render(content);
  }

  private render(content: unknown[]): unknown[] {
    return content.map((c) => {
      const id = terminalOf(c);
      return id === undefined ? c : { type: 'content', content: { type: 'text', text: this.text(id) } };
    });
  }

  private text(terminalId: string): string {
    const done = this.final.get(terminalId);
    if (done !== undefined) return done;
    const view = this.views.get(terminalId) ?? this.session.terminal(terminalId);
    if (!view) return '(terminal output not available)';
    const r = view.read();
    const fence = '`'.repeat(Math.max(3, ...[...r.output.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    const body = r.output === '' ? '' : `${fence}\n${r.output}${r.output.endsWith('\n') ? '' : '\n'}${fence}`;
    const status = r.exitStatus;
    const end =
      status && (status.exitCode !== 0 || status.signal)
        ? `\nexit ${status.signal ? `signal ${status.signal}` : `code ${String(status.exitCode)}`}`
        : '';
    return `${r.truncated ? '(earlier output truncated)\n' : ''}${body}${end}`;
  }

  private watch(terminalId: string): void {
    if (this.watched.has(terminalId) || this.final.has(terminalId)) return;
    const view = this.session.terminal(terminalId);
    if (!view) return;
    this.views.set(terminalId, view);
    this.watched.set(
      terminalId,
      view.onOutput(() => this.later(terminalId)),
    );
    view.exited.then(
      () => {
        if (this.disposed) return;
        this.final.set(terminalId, this.text(terminalId));
        this.stop(terminalId);
        this.flush(terminalId);
      },
      () => this.stop(terminalId),
    );
  }

  private later(terminalId: string): void {
    if (this.timers.has(terminalId) || this.disposed) return;
    const t = setTimeout(() => {
      this.timers.delete(terminalId);
      this.flush(terminalId);
    }, THROTTLE_MS);
    t.unref();
    this.timers.set(terminalId, t);
  }

  private stop(terminalId: string): void {
    this.watched.get(terminalId)?.();
    this.watched.delete(terminalId);
    this.views.delete(terminalId);
    clearTimeout(this.timers.get(terminalId));
    this.timers.delete(terminalId);
  }

  private flush(terminalId: string): void {
    if (this.disposed) return;
    for (const [toolCallId, content] of this.calls)
      if (content.some((c) => terminalOf(c) === terminalId)) this.send(toolCallId, this.render(content));
  }

  dispose(): void {
    this.disposed = true;
    for (const id of [...this.watched.keys()]) this.stop(id);
    this.calls.clear();
  }
}
