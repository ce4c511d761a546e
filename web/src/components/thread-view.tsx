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

  // "At the bottom" from an IntersectionObserver on a sentinel after the last row: no layout
  // read in a scroll handler (that forced a layout of the whole streamed message per event).
  const sentinel = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = scrollRef.current;
    const s = sentinel.current;
    if (!el || !s) return;
    const io = new IntersectionObserver((es) => {
      for (const e of es) atBottom.current = e.isIntersecting;
    }, { root: el, rootMargin: '0px 0px 64px 0px' });
    io.observe(s);
    return () => io.disconnect();
  }, []);

  // Following the stream: one scrollTop write per frame (scrollToIndex re-measures over several
  // frames and forces layout each time, which made long tasks on a 5,000-chunk turn).
  // The scroll is done in the next animation frame, where the browser lays out anyway: done
  // right after the commit it forced a layout inside the render's task.
  const jumped = useRef(false);
  const follow = useRef(0);
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || count === 0 || !atBottom.current) return;
    if (!jumped.current) {
      jumped.current = true;
      v.scrollToIndex(count - 1, { align: 'end' });
      return;
    }
    if (follow.current) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = 0;
      if (atBottom.current) sentinel.current?.scrollIntoView({ block: 'end' });
    });
  }, [view.version, count, v]);
  useEffect(() => () => cancelAnimationFrame(follow.current), []);

  const resolvedByTool = new Map([...view.resolved.values()].map((r) => [r.toolCallId, r]));
  const items = v.getVirtualItems();
  return (
    <div className="thread-scroll" ref={scrollRef} role="region" aria-label="Conversation" aria-busy={view.turnId !== undefined} data-testid="thread">
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
      <div ref={sentinel} className="thread-end" aria-hidden="true" />
    </div>
  );
}
