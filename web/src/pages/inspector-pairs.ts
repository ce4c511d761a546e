import { useEffect, useState } from 'react';

interface WireFrame {
  seq: number;
  at: number;
  dir: string;
  msg: unknown;
}

/** A request and its response, by JSON-RPC id within each direction: seq of the other frame and the latency. */
export type Pairs = Map<number, { kind: 'request' | 'response'; other?: number; ms?: number }>;

const toAgent = (dir: string): boolean => !(dir.startsWith('in') || dir.startsWith('agent'));

export function pairFrames(frames: readonly WireFrame[]): Pairs {
  const out: Pairs = new Map();
  // A request waits under its direction and id; the response comes the other way with the same id.
  const open = new Map<string, WireFrame>();
  for (const f of frames) {
    const m = f.msg as { id?: unknown; method?: unknown } | null;
    if (!m || typeof m !== 'object' || (typeof m.id !== 'number' && typeof m.id !== 'string')) continue;
    if (typeof m.method === 'string') {
      open.set(`${toAgent(f.dir)}:${String(m.id)}`, f);
      out.set(f.seq, { kind: 'request' });
      continue;
    }
    const key = `${!toAgent(f.dir)}:${String(m.id)}`;
    const req = open.get(key);
    if (!req) continue;
    open.delete(key);
    const ms = Math.max(0, f.at - req.at);
    out.set(req.seq, { kind: 'request', other: f.seq, ms });
    out.set(f.seq, { kind: 'response', other: req.seq, ms });
  }
  return out;
}

/** A frame's time: the wire log keeps ms since the session's log began ("+1.733 s"); an absolute time shows as HH:MM:SS.mmm. */
export function stamp(at: number): { text: string; dateTime: string } {
  if (at < 1e11) return { text: `+${(at / 1000).toFixed(3)} s`, dateTime: `PT${(at / 1000).toFixed(3)}S` };
  const d = new Date(at);
  const two = (n: number) => String(n).padStart(2, '0');
  const ms = String(d.getMilliseconds()).padStart(3, '0');
  return { text: `${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${ms}`, dateTime: d.toISOString() };
}

/** State kept in sessionStorage under `key` (the inspector's filters outlive the panel). */
export function useKept<T extends string>(key: string, initial: T): [T, (v: T) => void] {
  const [v, setV] = useState<T>(() => (sessionStorage.getItem(key) as T | null) ?? initial);
  useEffect(() => sessionStorage.setItem(key, v), [key, v]);
  return [v, setV];
}
