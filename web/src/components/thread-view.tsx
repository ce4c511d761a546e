import { useEffect, useLayoutEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { EntryRow } from '../entries/entry-row.js';
import { isObj } from '../state/entries.js';
import type { SessionView } from '../state/session-store.js';

/**
 * The thread, virtualized (only the rows in view are in the DOM: a 10,000-entry session scrolls
 * like a short one). It follows the stream while the reader is at the bottom, and stays put
 * when they scrolled up to read.
 */
export function ThreadView({ view, footer }: { view: SessionView; footer?: React.ReactNode }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  const count = view.entries.length;
  const v = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 72,
    overscan: 6,
    getItemKey: (i) => (isObj(view.entries[i]) && typeof (view.entries[i] as { id?: unknown }).id === 'string' ? ((view.entries[i] as { id: string }).id) : i),
  });

  useEffect(() => {
    const el = scrollRef.current;
    if (!el) return;
    const on = (): void => {
      atBottom.current = el.scrollHeight - el.scrollTop - el.clientHeight < 48;
    };
    el.addEventListener('scroll', on, { passive: true });
    return () => el.removeEventListener('scroll', on);
  }, []);

  useLayoutEffect(() => {
    if (atBottom.current && count > 0) v.scrollToIndex(count - 1, { align: 'end' });
  }, [view.version, count, v]);

  const resolvedByTool = new Map([...view.resolved.values()].map((r) => [r.toolCallId, r]));
  const items = v.getVirtualItems();
  return (
    <div className="thread-scroll" ref={scrollRef} role="log" aria-live="polite" aria-label="Conversation" aria-busy={view.turnId !== undefined} data-testid="thread">
      <div className="thread-inner" style={{ height: v.getTotalSize() }}>
        <div className="thread-rows" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((it) => {
            const entry = view.entries[it.index];
            const tcid = isObj(entry) && typeof entry.toolCallId === 'string' ? entry.toolCallId : undefined;
            return (
              <div key={it.key} data-index={it.index} data-entry={String(it.key)} ref={v.measureElement} className="thread-row">
                <EntryRow entry={entry} index={it.index} resolution={tcid ? resolvedByTool.get(tcid) : undefined} />
              </div>
            );
          })}
        </div>
      </div>
      {footer}
    </div>
  );
}
