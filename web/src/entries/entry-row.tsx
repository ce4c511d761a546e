import { memo, useState } from 'react';
import { readEntry } from '../state/entries.js';
import { partsOf, tailOf, type TextParts } from '../state/stream-text.js';
import type { Resolution } from '../state/session-store.js';
import { MarkdownText } from './markdown.js';
import { UserMessage } from './user-message.js';
import { href } from '../router.js';
import { ToolCard } from './tool-card.js';
import { SubagentLane } from './subagent-lane.js';
import { readDelegation } from '../../../src/providers/hermes/delegation.js';

/** One thread entry. Memoized on the entry object: an update replaces only that object. */
export const EntryRow = memo(function EntryRow({ entry, index, resolution }: { entry: unknown; index: number; resolution?: Resolution | undefined }) {
  const e = readEntry(entry, index);
  switch (e.kind) {
    case 'user_message':
      return <UserMessage e={e} />;
    case 'assistant_message':
      return (
        <div className="msg agent" data-kind="agent">
          <span className="sr-only">Agent: </span>
          <MarkdownText source={partsOf(entry) ?? e.text} />
        </div>
      );
    case 'thought':
      return <Thought source={partsOf(entry) ?? e.text} />;
    case 'tool_call': {
      const delegation = readDelegation(e);
      return delegation ? <SubagentLane tool={e} d={delegation} /> : <ToolCard tool={e} resolution={resolution} />;
    }
    case 'notice':
      return (
        <div
          className={`notice notice-${e.level}${e.code === 'branched' || e.code === 'history_seeded' ? ' notice-branch' : ''}`}
          role={e.level === 'error' ? 'alert' : 'note'}
          data-code={e.code}
        >
          <span className="notice-icon" aria-hidden="true">
            {e.level === 'error' ? '✕' : e.level === 'warning' ? '!' : e.code === 'branched' ? '↪' : 'i'}
          </span>
          <span>
            {e.text}
            {/* Where the conversation came from: the branch it left (still there to continue). */}
            {e.code === 'branched' && e.parentId && (
              <>
                {' '}
                <a href={href.session(e.parentId)}>Open the earlier branch</a>
              </>
            )}
          </span>
        </div>
      );
    case 'unknown':
      return (
        <details className="unknown">
          <summary className="muted small">Update “{e.sessionUpdate}” (not modelled; kept as sent)</summary>
          <pre className="json small">{JSON.stringify(e.raw, null, 2)}</pre>
        </details>
      );
  }
});

function Thought({ source }: { source: string | TextParts }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="thought">
      <button type="button" className="link-btn small" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        Thinking {open ? '▴' : '▾'}
      </button>
      {open ? <MarkdownText source={source} /> : <p className="thought-peek muted small">{tailOf(source, 160)}</p>}
    </div>
  );
}
