import { useEffect, useLayoutEffect, useRef } from 'react';
import { useVirtualizer } from '@tanstack/react-virtual';
import { EntryRow } from '../entries/entry-row.js';
import { PlanList } from './plan.js';
import { isObj } from '../state/entries.js';
import type { SessionView } from '../state/session-store.js';

/**
 * The thread, virtualized (only the rows in view are in the DOM: a 10,000-entry session scrolls
 * like a short one). It follows the stream while the reader is at the bottom, and stays put
 * when they scrolled up to read.
 */
/** A row's height before it is measured (px). */
const ESTIMATE = 72;

export function ThreadView({ view, footer }: { view: SessionView; footer?: React.ReactNode }) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const innerRef = useRef<HTMLDivElement>(null);
  const sentinel = useRef<HTMLDivElement>(null);
  const atBottom = useRef(true);
  /** The thread's height the view last followed to (px). */
  const followed = useRef(-1);
  // The plan is a row of the thread, in the turn that made it (after its user message): not
  // pinned over later turns. `after` is the index of the entry it follows (-1: the thread's start).
  const hasPlan = !!view.plan && view.plan.length > 0;
  const after = hasPlan ? planAfter(view.entries, view.planAt) : -1;
  /** The entry a row draws (PLAN for the plan's row). */
  const entryOf = (row: number): number => (!hasPlan || row <= after ? row : row === after + 1 ? PLAN : row - 1);
  const count = view.entries.length + (hasPlan ? 1 : 0);
  const v = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ESTIMATE,
    overscan: 6,
    // A scroll re-renders the rows in React's own task, not synchronously inside the scroll event:
    // while the thread follows a stream every follow-scroll was a forced render + layout in one
    // task (a Chromium trace showed 240 ms scroll handlers with a major GC landing in them).
    useFlushSync: false,
    // A row's size comes from the virtualizer's ResizeObserver (after the frame's own layout), not
    // from offsetHeight when the row mounts: that read forced a style + layout inside the commit's
    // task (the turn start's commit was one long task). Until it is observed: its known size, else
    // the estimate (rows flow in one block, so an estimate moves nothing in view).
    measureElement: (el, entry, inst) => {
      const box = entry?.borderBoxSize?.[0];
      if (box) return Math.round(box.blockSize);
      if (entry) return (el as HTMLElement).offsetHeight;
      return inst.itemSizeCache.get(inst.options.getItemKey(inst.indexFromElement(el))) ?? ESTIMATE;
    },
    // A row measured taller (the streamed message grew) while following: the thread's new height
    // and the scroll to the end right here, in the frame that measured it (a ResizeObserver
    // callback, layout fresh). Left to the re-render and an animation frame after it, each growth
    // cost a second frame of layout and paint.
    onChange: (inst) => {
      const total = inst.getTotalSize();
      const inner = innerRef.current;
      if (!atBottom.current || !inner || total === followed.current) return;
      followed.current = total;
      inner.style.height = `${total}px`;
      sentinel.current?.scrollIntoView({ block: 'end' });
    },
    getItemKey: (row) => {
      const i = entryOf(row);
      if (i === PLAN) return 'plan';
      const e = view.entries[i];
      return isObj(e) && typeof e.id === 'string' ? e.id : i;
    },
  });

  // Following the stream ("stuck" to the bottom) ends only by the reader's own move up (wheel,
  // touch, keys, the scrollbar), and starts again when they reach the bottom (an
  // IntersectionObserver on a sentinel after the last row). Neither reads layout in a handler;
  // and growth alone (a row measured taller, a block laid out as it comes into view) never
  // unsticks it, which it did when "at the bottom" was the sentinel's visibility alone.
  useEffect(() => {
    const el = scrollRef.current;
    const s = sentinel.current;
    if (!el || !s) return;
    const io = new IntersectionObserver(
      (es) => {
        for (const e of es) if (e.isIntersecting) atBottom.current = true;
      },
      { root: el, rootMargin: '0px 0px 64px 0px' },
    );
    io.observe(s);
    const away = (): void => {
      atBottom.current = false;
    };
    const wheel = (e: WheelEvent): void => {
      if (e.deltaY < 0) away();
    };
    const key = (e: KeyboardEvent): void => {
      if (e.key === 'ArrowUp' || e.key === 'PageUp' || e.key === 'Home') away();
    };
    // A press on the container itself (not a row) is its scrollbar.
    const press = (e: MouseEvent): void => {
      if (e.target === el) away();
    };
    el.addEventListener('wheel', wheel, { passive: true });
    el.addEventListener('touchmove', away, { passive: true });
    el.addEventListener('keydown', key);
    el.addEventListener('mousedown', press);
    return () => {
      io.disconnect();
      el.removeEventListener('wheel', wheel);
      el.removeEventListener('touchmove', away);
      el.removeEventListener('keydown', key);
      el.removeEventListener('mousedown', press);
    };
  }, []);

  // Following: one scroll per frame, in the animation frame (where the browser lays out anyway;
  // right after the commit it forced a layout inside the render's task), on every change of the
  // thread or of its measured height.
  const jumped = useRef(false);
  const follow = useRef(0);
  const shownVersion = useRef(-1);
  const total = v.getTotalSize();
  useLayoutEffect(() => {
    const el = scrollRef.current;
    if (!el || count === 0 || !atBottom.current) return;
    if (!jumped.current) {
      jumped.current = true;
      v.scrollToIndex(count - 1, { align: 'end' });
    }
    // A re-render for a height already followed to (onChange above) needs no frame of its own;
    // a new version still does (the footer's approval card or status is not in the rows' height).
    const fresh = shownVersion.current !== view.version;
    shownVersion.current = view.version;
    if (follow.current || (!fresh && followed.current === total)) return;
    follow.current = requestAnimationFrame(() => {
      follow.current = 0;
      if (atBottom.current) sentinel.current?.scrollIntoView({ block: 'end' });
    });
  }, [view.version, count, total, v]);
  useEffect(() => () => cancelAnimationFrame(follow.current), []);

  const resolvedByTool = new Map([...view.resolved.values()].map((r) => [r.toolCallId, r]));
  const items = v.getVirtualItems();
  return (
    <div className="thread-scroll" ref={scrollRef} role="region" aria-label="Conversation" aria-busy={view.turnId !== undefined} data-testid="thread">
      <div className="thread-inner" ref={innerRef} style={{ height: total }}>
        <div className="thread-rows" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((it) => {
            const index = entryOf(it.index);
            if (index === PLAN)
              return (
                <div key={it.key} data-index={it.index} data-entry="plan" ref={v.measureElement} className="thread-row">
                  <PlanList plan={view.plan!} id={`${view.sessionId} ${view.planAt ?? ''}`} />
                </div>
              );
            const entry = view.entries[index];
            const tcid = isObj(entry) && typeof entry.toolCallId === 'string' ? entry.toolCallId : undefined;
            return (
              <div key={it.key} data-index={it.index} data-entry={String(it.key)} ref={v.measureElement} className="thread-row">
                <EntryRow entry={entry} index={index} resolution={tcid ? resolvedByTool.get(tcid) : undefined} />
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

const PLAN = -2;

/**
 * The index of the entry the plan follows: the user message of its turn (known to this browser),
 * else the last user message (a plan made before this page saw it is the latest turn's), else the end.
 */
function planAfter(entries: unknown[], at: string | undefined): number {
  let last = -1;
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (!isObj(e)) continue;
    if (at !== undefined && e.id === at) return i;
    if (last < 0 && e.kind === 'user_message') {
      last = i;
      if (at === undefined) break;
    }
  }
  return last >= 0 ? last : entries.length - 1;
}
