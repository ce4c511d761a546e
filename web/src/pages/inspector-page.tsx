import { Fragment, useEffect, useMemo, useState } from 'react';
import { describeError } from '../api/server.js';
import type { AppStore } from '../state/app-store.js';
import { isObj, str } from '../state/entries.js';
import { href } from '../router.js';
import { pairFrames, stamp, useKept, type Pairs } from './inspector-pairs.js';

interface Frame {
  seq: number;
  at: number;
  dir: string;
  msg: unknown;
  problem?: string | undefined;
}

/**
 * The protocol inspector: the session's wire log, both directions, live (polled from the
 * server's wire log as it grows), filter by method and direction, pretty JSON, and frames that
 * failed the ACP schema highlighted.
 */
export function InspectorPage({ store, id }: { store: AppStore; id: string }) {
  const [frames, setFrames] = useState<Frame[]>([]);
  const [err, setErr] = useState<string>();
  // The filters are kept while the panel is closed and opened again (this tab).
  const [method, setMethod] = useKept<string>('talaria.inspector.method', '');
  const [dir, setDir] = useKept<'all' | 'in' | 'out'>('talaria.inspector.dir', 'all');
  const [open, setOpen] = useState<number>();

  useEffect(() => {
    let live = true;
    let after: number | undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const pull = async (): Promise<void> => {
      try {
        for (;;) {
          const r = await store.client.api.wireLog({ params: { id }, query: { ...(after !== undefined ? { after } : {}), limit: 2000 } });
          if (!live) return;
          if (r.frames.length) {
            after = r.frames[r.frames.length - 1]!.seq;
            setFrames((f) => [...f, ...r.frames]);
          }
          if (r.next === undefined || r.frames.length === 0) break;
        }
        setErr(undefined);
      } catch (e) {
        if (live) setErr(describeError(e).message);
      }
      if (live) timer = setTimeout(() => void pull(), 1000);
    };
    void pull();
    return () => {
      live = false;
      if (timer) clearTimeout(timer);
    };
  }, [store, id]);

  const shown = useMemo(
    () => frames.filter((f) => (dir === 'all' || f.dir === dir || f.dir.startsWith(dir === 'in' ? 'agent->' : 'client->')) && (method === '' || methodOf(f.msg).includes(method))),
    [frames, dir, method],
  );
  const bad = frames.filter((f) => f.problem).length;
  const pairs = useMemo(() => pairFrames(frames), [frames]);

  return (
    <div className="inspector">
      <header className="inspector-head">
        <h2>Protocol inspector</h2>
        <a href={href.session(id)} aria-label="Close the inspector">
          Close
        </a>
        <span className="muted small">
          {frames.length} frames{bad ? ` · ${bad} failed the schema` : ''}
        </span>
      </header>
      <div className="inspector-tools">
        <input aria-label="Filter by method" placeholder="method, e.g. session/update" value={method} onChange={(e) => setMethod(e.target.value)} />
        <span className="seg" role="group" aria-label="Direction">
          {(['all', 'in', 'out'] as const).map((d) => (
            <button key={d} type="button" aria-pressed={dir === d} onClick={() => setDir(d)}>
              {d === 'all' ? 'Both' : d === 'in' ? '← from agent' : '→ to agent'}
            </button>
          ))}
        </span>
      </div>
      {err && <p className="error" role="alert">{err}</p>}
      <ol className="frames" aria-label="Wire frames">
        {shown.map((f) => (
          <li key={f.seq} className={`frame ${f.problem ? 'frame-bad' : ''} dir-${f.dir.startsWith('in') || f.dir.startsWith('agent') ? 'in' : 'out'}`}>
            <button type="button" className="frame-line" aria-expanded={open === f.seq} onClick={() => setOpen(open === f.seq ? undefined : f.seq)}>
              <span className="mono small">{f.seq}</span>
              <time className="muted small mono" dateTime={stamp(f.at).dateTime}>
                {stamp(f.at).text}
              </time>
              <span className="frame-dir">{f.dir.startsWith('in') || f.dir.startsWith('agent') ? '←' : '→'}</span>
              <span className="mono">{breakable(methodOf(f.msg) || '(response)')}</span>
              <span className="muted small mono">{idOf(f.msg)}</span>
              <Pairing f={f} pairs={pairs} />
              {f.problem && <span className="tag bad">schema: {f.problem}</span>}
            </button>
            {open === f.seq && <pre className="json small">{JSON.stringify(f.msg, null, 2)}</pre>}
          </li>
        ))}
      </ol>
    </div>
  );
}

function methodOf(m: unknown): string {
  if (!isObj(m)) return '';
  const meth = str(m.method) ?? '';
  const upd = isObj(m.params) && isObj(m.params.update) ? str(m.params.update.sessionUpdate) : undefined;
  return upd ? `${meth} · ${upd}` : meth;
}
/** A method may wrap after each `/` (session/ request_permission), never inside a name. */
function breakable(text: string) {
  const parts = text.split('/');
  return parts.map((p, i) => (i < parts.length - 1 ? <Fragment key={i}>{p}/<wbr /></Fragment> : <Fragment key={i}>{p}</Fragment>));
}
function idOf(m: unknown): string {
  return isObj(m) && (typeof m.id === 'number' || typeof m.id === 'string') ? `#${m.id}` : '';
}

/** A request: "answered in N ms" (or "no answer yet"); a response: which request, and its latency. */
function Pairing({ f, pairs }: { f: Frame; pairs: Pairs }) {
  const p = pairs.get(f.seq);
  if (!p) return null;
  if (p.kind === 'request')
    return <span className="muted small frame-pair">{p.other === undefined ? 'no answer yet' : `answered by ${p.other} in ${p.ms} ms`}</span>;
  return <span className="muted small frame-pair">{`answers ${p.other} after ${p.ms} ms`}</span>;
}
