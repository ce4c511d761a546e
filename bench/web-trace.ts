/**
 * Reads a Chromium trace written by the web bench (`TALARIA_WEB_TRACE=/tmp/t.json npm run bench --
 * --only web.ui`) and prints each main-thread task of the page over a threshold with what it
 * spent its time on: the trace events inside it (GC, style, layout, paint, timers, script) and
 * the JS functions the sampling profiler saw in it (self time).
 *
 *   npx tsx bench/web-trace.ts /tmp/t.json [minMs=50]
 */
import { readFileSync } from 'node:fs';

export interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  /** Thread (CPU) time: far below `dur` when the thread waited for a core (a loaded machine). */
  tdur?: number;
  pid: number;
  tid: number;
  id?: string;
  args?: Record<string, unknown> & { name?: string; data?: Record<string, unknown> };
}

interface Frame {
  functionName: string;
  url?: string;
  lineNumber?: number;
  columnNumber?: number;
}

const TASK = new Set(['RunTask', 'ThreadControllerImpl::RunTask']);

/**
 * The page's main-thread tasks (outermost only: a RunTask holds a ThreadControllerImpl::RunTask
 * and the other way round), with the events of that thread; undefined without a renderer.
 */
export function mainThreadTasks(
  events: TraceEvent[],
): { main: TraceEvent; onMain: TraceEvent[]; tasks: TraceEvent[] } | undefined {
  const main = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain');
  if (!main) return undefined;
  const onMain = events.filter((e) => e.pid === main.pid && e.tid === main.tid);
  const tasks: TraceEvent[] = [];
  let until = -1;
  for (const e of onMain.filter((x) => x.ph === 'X' && TASK.has(x.name)).sort((a, b) => a.ts - b.ts)) {
    if (e.ts < until) continue;
    tasks.push(e);
    until = e.ts + (e.dur ?? 0);
  }
  return { main, onMain, tasks };
}

/** CPU time (ms) of each of the page's tasks, but the tracer's own (the sampling profiler's start). */
export function pageTaskCpu(events: TraceEvent[]): number[] {
  const found = mainThreadTasks(events);
  if (!found) return [];
  const own = found.onMain.filter((e) => e.name === 'CpuProfiler::StartProfiling');
  return found.tasks
    .filter((t) => !own.some((e) => e.ts >= t.ts && e.ts <= t.ts + (t.dur ?? 0)))
    .map((t) => (t.tdur ?? 0) / 1000);
}

export function summarise(events: TraceEvent[], minMs: number): string[] {
  const found = mainThreadTasks(events);
  if (!found) return ['no CrRendererMain thread in this trace'];
  const { main, onMain, tasks: all } = found;
  const samples = profileSamples(events, main.pid);
  const out: string[] = [];
  const tasks = all.filter((e) => (e.dur ?? 0) / 1000 > minMs);
  const t0 = all[0]?.ts ?? 0;
  const cpuLong = tasks.filter((e) => (e.tdur ?? 0) / 1000 > minMs).length;
  out.push(
    `${tasks.length} of ${all.length} main-thread tasks over ${minMs} ms of wall time; ${cpuLong} of them over ${minMs} ms of thread (CPU) time`,
  );
  for (const t of tasks) {
    const end = t.ts + (t.dur ?? 0);
    out.push(
      `\ntask at ${((t.ts - t0) / 1000).toFixed(0)} ms: ${((t.dur ?? 0) / 1000).toFixed(1)} ms wall, ${((t.tdur ?? 0) / 1000).toFixed(1)} ms CPU`,
    );
    const by = new Map<string, number>();
    for (const e of onMain) {
      if (e === t || TASK.has(e.name) || e.ph !== 'X' || e.ts < t.ts || e.ts > end) continue;
      const data = e.args?.data;
      const label =
        e.name === 'FunctionCall' && data
          ? `FunctionCall ${String(data.functionName ?? '')}@${String(data.url ?? '')
              .split('/')
              .pop()}:${String(data.lineNumber ?? '')}`
          : e.name;
      by.set(label, (by.get(label) ?? 0) + (e.dur ?? 0) / 1000);
    }
    for (const [k, ms] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 16))
      out.push(`  ${ms.toFixed(1).padStart(7)} ms  ${k}`);
    const self = new Map<string, number>();
    for (const s of samples) if (s.ts >= t.ts && s.ts <= end) self.set(s.label, (self.get(s.label) ?? 0) + s.ms);
    if (self.size) {
      out.push('  JS self time (sampled):');
      for (const [k, ms] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 12))
        out.push(`  ${ms.toFixed(1).padStart(7)} ms  ${k}`);
    }
  }
  return out;
}

/** The sampling profiler's samples (ProfileChunk events) of one process, each with its leaf frame. */
function profileSamples(events: TraceEvent[], pid: number): { ts: number; ms: number; label: string }[] {
  const nodes = new Map<number, Frame>();
  const out: { ts: number; ms: number; label: string }[] = [];
  const starts = new Map<string, number>();
  for (const e of events)
    if (e.pid === pid && e.name === 'Profile' && e.id)
      starts.set(e.id, Number((e.args?.data as { startTime?: number } | undefined)?.startTime ?? e.ts));
  const time = new Map<string, number>();
  for (const e of events) {
    if (e.pid !== pid || e.name !== 'ProfileChunk' || !e.id) continue;
    const data = e.args?.data as
      | { cpuProfile?: { nodes?: { id: number; callFrame: Frame }[]; samples?: number[] }; timeDeltas?: number[] }
      | undefined;
    for (const n of data?.cpuProfile?.nodes ?? []) nodes.set(n.id, n.callFrame);
    let ts = time.get(e.id) ?? starts.get(e.id) ?? e.ts;
    const ids = data?.cpuProfile?.samples ?? [];
    const deltas = data?.timeDeltas ?? [];
    for (let i = 0; i < ids.length; i++) {
      const d = deltas[i] ?? 0;
      ts += d;
      const f = nodes.get(ids[i]!);
      const label = f
        ? `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('/').pop() ?? ''}:${(f.lineNumber ?? -1) + 1}:${(f.columnNumber ?? -1) + 1}`
        : `node ${ids[i]}`;
      out.push({ ts, ms: (deltas[i + 1] ?? d) / 1000, label });
    }
    time.set(e.id, ts);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [path, min] = process.argv.slice(2);
  if (!path) {
    process.stderr.write('usage: tsx bench/web-trace.ts TRACE.json [minMs]\n');
    process.exit(2);
  }
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(raw) ? raw : (raw.traceEvents ?? []);
  process.stdout.write(summarise(events, Number(min ?? 50)).join('\n') + '\n');
}
