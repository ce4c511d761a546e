import { memo, useState } from 'react';
import { isObj, str, type ToolView } from '../state/entries.js';
import type { Resolution } from '../state/session-store.js';
import { DiffView } from '../lazy.js';
import { TerminalOutput, hasAnsi } from './terminal.js';
import { MarkdownText } from './markdown.js';
import { KindIcon } from './kind-icon.js';
import { Spinner } from '../components/motion.js';

const STATUS_TEXT: Record<string, string> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** Cards whose person opened or shut them (kept across the virtualized rows' remounts). */
const chosen = new Map<string, boolean>();
/** Cards that opened by themselves (an approval asked): they stay open once the answer is in. */
const opened = new Set<string>();
/** When this page first saw a call running, and when it saw it settle (ms): its duration. */
const seen = new Map<string, { start: number; end?: number }>();

/**
 * A tool call: one line (kind icon, title, status, duration) that opens on click. A call that
 * waits for an approval, failed or holds a diff is open from the start (a person must see what
 * they approve); the rest (locations, output, arguments) is inside the open card.
 */
export const ToolCard = memo(function ToolCard({ tool, resolution }: { tool: ToolView; resolution?: Resolution | undefined }) {
  const [raw, setRaw] = useState(false);
  const settled = tool.status === 'completed' || tool.status === 'failed' || tool.status === 'cancelled';
  const id = tool.toolCallId;
  if (tool.permission?.status === 'pending') opened.add(id);
  const eyes = opened.has(id) || tool.status === 'failed' || tool.content.some((c) => isObj(c) && c.type === 'diff');
  const [own, setOwn] = useState(chosen.get(id));
  const open = own ?? eyes;
  const toggle = (): void => {
    chosen.set(id, !open);
    setOwn(!open);
  };
  const took = duration(tool, settled);
  const bodyId = `tool-body-${id}`;
  return (
    <article
      className={`tool-card status-${tool.status}${open ? ' open' : ''}`}
      data-kind={tool.toolKind ?? 'other'}
      aria-label={`Tool call (${tool.toolKind ?? 'other'}): ${tool.title}, ${STATUS_TEXT[tool.status] ?? tool.status}`}
      data-tool={id}
    >
      <header className="tool-head">
        <button type="button" className="tool-toggle" aria-expanded={open} aria-controls={open ? bodyId : undefined} onClick={toggle}>
          <KindIcon kind={tool.toolKind} />
          <span className="tool-title">{tool.title}</span>
          <span className={`tool-status st-${tool.status}`}>
            {!settled && <Spinner />}
            {STATUS_TEXT[tool.status] ?? tool.status}
          </span>
          {took && <span className="tool-took small muted">{took}</span>}
          <span className="tool-chevron" aria-hidden="true">
            {open ? '▴' : '▾'}
          </span>
        </button>
      </header>
      {open && (
        <div className="tool-body" id={bodyId}>
          {tool.locations.length > 0 && (
            <ul className="locations">
              {tool.locations.map((l, i) => (
                <li key={i} className="mono small">
                  {l.path}
                  {l.line !== undefined ? `:${l.line}` : ''}
                </li>
              ))}
            </ul>
          )}
          {tool.content.map((c, i) => (
            <ToolContent key={i} item={c} kind={tool.toolKind} />
          ))}
          <Output value={tool.rawOutput} />
          {tool.permission && <PermissionLine p={tool.permission} resolution={resolution} />}
          {tool.settledBy && tool.settledBy !== 'agent' && (
            <p className="muted small">Settled by Talaria at {tool.settledBy === 'cancel' ? 'the cancel' : 'the end of the turn'}: the agent did not report it.</p>
          )}
          <button type="button" className="link-btn small args-btn" aria-expanded={raw} onClick={() => setRaw((r) => !r)}>
            {raw ? 'Hide' : 'Show'} arguments
          </button>
          {raw && <pre className="json small">{JSON.stringify({ rawInput: tool.rawInput, rawOutput: tool.rawOutput }, null, 2)}</pre>}
        </div>
      )}
    </article>
  );
});

/**
 * How long the call ran ("" until it settled): the server's start and end times, else as this page
 * saw it run (a server or agent from before the times were kept).
 */
function duration(tool: ToolView, settled: boolean): string {
  const now = Date.now();
  const id = tool.toolCallId;
  let t = seen.get(id);
  if (!settled) {
    if (!t) seen.set(id, (t = { start: now }));
    return '';
  }
  if (tool.startedAt !== undefined && tool.endedAt !== undefined) return formatTook(tool.endedAt - tool.startedAt);
  if (!t) return '';
  t.end ??= now;
  return formatTook(t.end - t.start);
}

function formatTook(ms: number): string {
  if (ms < 1000) return `${Math.max(0.1, Math.round(ms / 100) / 10)}s`;
  if (ms < 60_000) return `${Math.round(ms / 100) / 10}s`;
  return `${Math.floor(ms / 60_000)}m ${Math.round((ms % 60_000) / 1000)}s`;
}

function PermissionLine({ p, resolution }: { p: NonNullable<ToolView['permission']>; resolution?: Resolution | undefined }) {
  const who = resolution?.answeredBy ? ` by ${resolution.answeredBy}` : resolution?.decidedBy && resolution.decidedBy !== 'user' ? ` (${resolution.decidedBy})` : '';
  const text =
    p.status === 'pending'
      ? 'Waiting for your approval'
      : p.status === 'allowed'
        ? `Allowed${p.optionKind === 'allow_always' ? ' always' : ''}${who}`
        : p.status === 'rejected'
          ? `Rejected${who}`
          : `Cancelled${who}`;
  return <p className={`perm-line perm-${p.status}`}>{text}</p>;
}

/**
 * One content item; a command's text output is shown as a terminal (monospace, ANSI colours), a
 * file's text as it is in the file (markdown would join its lines).
 */
function ToolContent({ item, kind }: { item: unknown; kind: string | undefined }) {
  const terminal = kind === 'execute';
  if (!isObj(item)) return null;
  if (item.type === 'diff' && typeof item.path === 'string') {
    return <DiffView path={item.path} oldText={typeof item.oldText === 'string' ? item.oldText : null} newText={str(item.newText) ?? ''} />;
  }
  if (item.type === 'terminal') return <p className="muted small mono">terminal {str(item.terminalId)}</p>;
  if (item.type === 'content' && isObj(item.content)) {
    const c = item.content;
    if (c.type === 'text' && typeof c.text === 'string') {
      if (hasAnsi(c.text)) return <Lines text={c.text} max={COMMAND_LINES} render={(t) => <TerminalOutput text={t} />} />;
      // Markdown from the agent (Hermes: "- **output:** …") reads as Markdown, even for a command.
      if (kind !== 'read' && looksLikeMarkdown(c.text)) return <MarkdownText source={c.text} />;
      if (terminal) return <Lines text={c.text} max={COMMAND_LINES} render={(t) => <TerminalOutput text={t} />} />;
      if (kind === 'read')
        return (
          <Lines
            text={c.text}
            max={READ_LINES}
            render={(t) => (
              <pre className="tool-file" tabIndex={0}>
                {t}
              </pre>
            )}
          />
        );
      return <MarkdownText source={c.text} />;
    }
    if (c.type === 'image' && typeof c.data === 'string')
      return <img className="tool-img" alt="Image from the tool" src={`data:${str(c.mimeType) ?? 'image/png'};base64,${c.data}`} />;
    return <pre className="json small">{JSON.stringify(c, null, 2)}</pre>;
  }
  return <pre className="json small">{JSON.stringify(item, null, 2)}</pre>;
}

/** Command output the agent put in rawOutput (stdout/stderr/output), with its colours (or as Markdown, when it is). */
function Output({ value }: { value: unknown }) {
  const text = !isObj(value) ? (typeof value === 'string' ? value : '') : [str(value.output), str(value.stdout), str(value.stderr)].filter(Boolean).join('\n');
  if (!text) return null;
  if (!hasAnsi(text) && looksLikeMarkdown(text)) return <MarkdownText source={text} />;
  return <Lines text={text} max={COMMAND_LINES} render={(t) => <TerminalOutput text={t} />} />;
}

/** A command's output shows this many lines until "show all"; a file that was read, this many. */
const COMMAND_LINES = 20;
const READ_LINES = 12;

/** Text drawn by `render`, cut to its first `max` lines with a "Show all N lines" button under it. */
function Lines({ text, max, render }: { text: string; max: number; render: (text: string) => React.ReactNode }) {
  const [all, setAll] = useState(false);
  const lines = text.replace(/\n$/, '').split('\n');
  // A cut saves at least a few lines (not "show all 21 lines" for one hidden line).
  const cut = !all && lines.length > max + 3;
  return (
    <div className="lines">
      {render(cut ? lines.slice(0, max).join('\n') : text)}
      {lines.length > max + 3 && (
        <button type="button" className="link-btn small show-all" aria-expanded={all} onClick={() => setAll((a) => !a)}>
          {all ? 'Show less' : `Show all ${lines.length} lines`}
        </button>
      )}
    </div>
  );
}

/** Markdown an agent sends as a tool's output: list items with bold labels, headings, fenced code. */
export function looksLikeMarkdown(text: string): boolean {
  return /^\s*[-*] \*\*[^*\n]+\*\*/m.test(text) || /^#{1,6} \S/m.test(text) || /^```/m.test(text);
}
