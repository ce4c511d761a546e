import { useMemo, useState } from 'react';
import { structuredPatch } from 'diff';

/** A file change, unified or side by side (split), computed with the `diff` library. */
export function DiffView({ path, oldText, newText, initial = 'unified' }: { path: string; oldText: string | null; newText: string; initial?: 'unified' | 'split' }) {
  const [mode, setMode] = useState<'unified' | 'split'>(initial);
  const patch = useMemo(() => structuredPatch(path, path, oldText ?? '', newText, '', '', { context: 3 }), [path, oldText, newText]);
  const added = patch.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('+')).length, 0);
  const removed = patch.hunks.reduce((n, h) => n + h.lines.filter((l) => l.startsWith('-')).length, 0);
  return (
    <figure className="diff" aria-label={`Changes to ${path}`}>
      <figcaption className="diff-head">
        <span className="mono small">{path}</span>
        {oldText === null && <span className="tag">new file</span>}
        <span className="add small">+{added}</span>
        <span className="del small">−{removed}</span>
        <span className="seg" role="group" aria-label="Diff layout">
          <button type="button" aria-pressed={mode === 'unified'} onClick={() => setMode('unified')}>
            Unified
          </button>
          <button type="button" aria-pressed={mode === 'split'} onClick={() => setMode('split')}>
            Split
          </button>
        </span>
      </figcaption>
      <div className="diff-body">
        {patch.hunks.map((h, i) => (
          <div key={i} className="hunk">
            <div className="hunk-head mono small">
              @@ −{h.oldStart},{h.oldLines} +{h.newStart},{h.newLines} @@
            </div>
            {mode === 'unified' ? <Unified lines={h.lines} oldStart={h.oldStart} newStart={h.newStart} /> : <Split lines={h.lines} oldStart={h.oldStart} newStart={h.newStart} />}
          </div>
        ))}
        {patch.hunks.length === 0 && <div className="muted small pad">No changes.</div>}
      </div>
    </figure>
  );
}

function Unified({ lines, oldStart, newStart }: { lines: string[]; oldStart: number; newStart: number }) {
  let o = oldStart;
  let n = newStart;
  return (
    <table className="diff-table mono">
      <tbody>
        {lines.map((l, i) => {
          const sign = l[0];
          const cls = sign === '+' ? 'add' : sign === '-' ? 'del' : 'ctx';
          const on = sign === '+' ? '' : o++;
          const nn = sign === '-' ? '' : n++;
          if (sign === '\\') return null;
          return (
            <tr key={i} className={cls}>
              <td className="ln">{on}</td>
              <td className="ln">{nn}</td>
              <td className="sign">{sign === ' ' ? '' : sign}</td>
              <td className="code">{l.slice(1)}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

function Split({ lines, oldStart, newStart }: { lines: string[]; oldStart: number; newStart: number }) {
  // Pair each run of removals with the run of additions that follows it.
  const rows: { l?: [number, string]; r?: [number, string]; kind: string }[] = [];
  let o = oldStart;
  let n = newStart;
  for (let i = 0; i < lines.length; ) {
    const l = lines[i]!;
    if (l[0] === ' ') {
      rows.push({ l: [o++, l.slice(1)], r: [n++, l.slice(1)], kind: 'ctx' });
      i++;
      continue;
    }
    const dels: string[] = [];
    const adds: string[] = [];
    while (i < lines.length && lines[i]![0] === '-') dels.push(lines[i++]!.slice(1));
    while (i < lines.length && lines[i]![0] === '+') adds.push(lines[i++]!.slice(1));
    if (dels.length === 0 && adds.length === 0) {
      i++;
      continue;
    }
    for (let k = 0; k < Math.max(dels.length, adds.length); k++) {
      const row: { l?: [number, string]; r?: [number, string]; kind: string } = { kind: 'chg' };
      if (k < dels.length) row.l = [o++, dels[k]!];
      if (k < adds.length) row.r = [n++, adds[k]!];
      rows.push(row);
    }
  }
  return (
    <table className="diff-table split mono">
      <tbody>
        {rows.map((r, i) => (
          <tr key={i}>
            <td className="ln">{r.l?.[0] ?? ''}</td>
            <td className={`code ${r.kind === 'chg' && r.l ? 'del' : ''}`}>{r.l?.[1] ?? ''}</td>
            <td className="ln">{r.r?.[0] ?? ''}</td>
            <td className={`code ${r.kind === 'chg' && r.r ? 'add' : ''}`}>{r.r?.[1] ?? ''}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
