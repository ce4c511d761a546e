/**
 * What the web bench installs in the page before any of its scripts run: a `longtask` observer
 * (the row's figure) and a `long-animation-frame` observer (what ran in a long frame: which
 * scripts, how long style and layout took), both cheap enough to run in every measured run, so
 * a failing run explains itself. The window is opened and read with plain evaluates.
 */

export interface LongTask {
  start: number;
  duration: number;
}

export interface LoafScript {
  invoker: string;
  type: string;
  fn: string;
  at: number;
  duration: number;
  forcedLayout: number;
}

export interface Loaf {
  start: number;
  duration: number;
  blocking: number;
  renderStart: number;
  styleAndLayoutStart: number;
  scripts: LoafScript[];
}

/** Installed with `addInitScript`: observers registered before the app's first script. */
export const OBSERVE = `
  window.__longTasks = [];
  window.__loafs = [];
  window.__from = 0;
  window.__lt = new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); });
  window.__lt.observe({ type: 'longtask', buffered: true });
  window.__keepLoaf = (e) => {
    if (e.duration <= 50) return;
    window.__loafs.push({
      start: e.startTime, duration: e.duration, blocking: e.blockingDuration, renderStart: e.renderStart, styleAndLayoutStart: e.styleAndLayoutStart,
      scripts: e.scripts.map((s) => ({ invoker: s.invoker, type: s.invokerType, fn: s.sourceFunctionName, at: s.sourceCharPosition, duration: s.duration, forcedLayout: s.forcedStyleAndLayoutDuration })),
    });
  };
  try {
    window.__lf = new PerformanceObserver((l) => {
      for (const e of l.getEntries()) window.__keepLoaf(e);
    });
    window.__lf.observe({ type: 'long-animation-frame', buffered: true });
  } catch {}
`;

/**
 * Opens the measured window: from now on. Entries are delivered to an observer in a later task,
 * so a long task from before (the previous page's teardown) may still arrive after this: the
 * window is a start time, not an emptied list.
 */
export const OPEN_WINDOW = 'window.__from = performance.now()';

/**
 * Closes the window once the frame that drew the last chunk has been painted (two animation
 * frames on): the entries not yet delivered are taken now (takeRecords), and only the tasks that
 * started inside the window are kept.
 */
export const READ_WINDOW = `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))).then(() => {
  for (const e of window.__lt.takeRecords()) window.__longTasks.push({ start: e.startTime, duration: e.duration });
  // The long frames not delivered yet are kept too (the turn's last frames were dropped here).
  if (window.__lf) for (const e of window.__lf.takeRecords()) window.__keepLoaf(e);
  const from = window.__from;
  return { from, tasks: window.__longTasks.filter((t) => t.start >= from), loafs: window.__loafs.filter((f) => f.start + f.duration >= from) };
})`;

/** One line per long task (at most `max`): when, how long, and what its long frame ran. */
export function describeLongTasks(from: number, tasks: LongTask[], loafs: Loaf[], max = 6): string[] {
  const out: string[] = [];
  for (const t of [...tasks].sort((a, b) => b.duration - a.duration).slice(0, max)) {
    const f = loafs.find((l) => l.start <= t.start + 1 && l.start + l.duration >= t.start + t.duration - 1);
    let what = 'no long frame around it';
    if (f) {
      const layout = f.styleAndLayoutStart > 0 ? f.start + f.duration - f.styleAndLayoutStart : 0;
      const scripts = [...f.scripts]
        .sort((a, b) => b.duration - a.duration)
        .slice(0, 3)
        .map(
          (s) =>
            `${s.type} ${s.invoker}${s.fn ? ` ${s.fn}@${s.at}` : ''} ${s.duration.toFixed(0)} ms${s.forcedLayout ? ` (forced layout ${s.forcedLayout.toFixed(0)})` : ''}`,
        );
      what = `frame ${f.duration.toFixed(0)} ms, style+layout+paint ${layout.toFixed(0)} ms; ${scripts.join('; ') || 'no script'}`;
    }
    out.push(`web.ui long task at +${(t.start - from).toFixed(0)} ms: ${t.duration.toFixed(0)} ms — ${what}`);
  }
  return out;
}
