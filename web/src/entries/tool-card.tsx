import { memo, useState } from 'react';
import { isObj, str, type ToolView } from '../state/entries.js';
import type { Resolution } from '../state/session-store.js';
import { DiffView } from './diff-view.js';
import { TerminalOutput, hasAnsi } from './terminal.js';
import { MarkdownText } from './markdown.js';
import { KindIcon } from './kind-icon.js';

const STATUS_TEXT: Record<string, string> = {
  pending: 'pending',
  in_progress: 'running',
  completed: 'done',
  failed: 'failed',
  cancelled: 'cancelled',
};

/** A tool call: kind icon, the title from its start, status, locations, diffs and output. */
export const ToolCard = memo(function ToolCard({ tool, resolution }: { tool: ToolView; resolution?: Resolution | undefined }) {
  const [raw, setRaw] = useState(false);
  const settled = tool.status === 'completed' || tool.status === 'failed' || tool.status === 'cancelled';
  const [open, setOpen] = useState(true);
  return (
    <article
      className={`tool-card status-${tool.status}`}
      data-kind={tool.toolKind ?? 'other'}
      aria-label={`Tool call (${tool.toolKind ?? 'other'}): ${tool.title}, ${STATUS_TEXT[tool.status] ?? tool.status}`}
      data-tool={tool.toolCallId}
    >
      <header className="tool-head">
        <button type="button" className="tool-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} aria-label={open ? 'Collapse' : 'Expand'}>
          <KindIcon kind={tool.toolKind} />
        </button>
        <span className="tool-title">{tool.title}</span>
        <span className={`tool-status st-${tool.status}`}>
          {!settled && <span className="spinner" aria-hidden="true" />}
          {STATUS_TEXT[tool.status] ?? tool.status}
        </span>
      </header>
      {open && (
        <div className="tool-body">
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
          <button type="button" className="link-btn small" aria-expanded={raw} onClick={() => setRaw((r) => !r)}>
            {raw ? 'Hide' : 'Show'} arguments
          </button>
          {raw && <pre className="json small">{JSON.stringify({ rawInput: tool.rawInput, rawOutput: tool.rawOutput }, null, 2)}</pre>}
        </div>
      )}
    </article>
  );
});

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
      if (terminal || hasAnsi(c.text)) return <TerminalOutput text={c.text} />;
      if (kind === 'read') return <pre className="tool-file">{c.text}</pre>;
      return <MarkdownText source={c.text} />;
    }
    if (c.type === 'image' && typeof c.data === 'string')
      return <img className="tool-img" alt="Image from the tool" src={`data:${str(c.mimeType) ?? 'image/png'};base64,${c.data}`} />;
    return <pre className="json small">{JSON.stringify(c, null, 2)}</pre>;
  }
  return <pre className="json small">{JSON.stringify(item, null, 2)}</pre>;
}

/** Command output the agent put in rawOutput (stdout/stderr/output), with its colours. */
function Output({ value }: { value: unknown }) {
  if (!isObj(value)) return typeof value === 'string' && value ? <TerminalOutput text={value} /> : null;
  const text = [str(value.output), str(value.stdout), str(value.stderr)].filter(Boolean).join('\n');
  return text ? <TerminalOutput text={text} /> : null;
}
