import { useMemo } from 'react';
import Anser from 'anser';

/** Terminal output with its ANSI colours (anser parses; React escapes the text). */
export function TerminalOutput({ text, label }: { text: string; label?: string }) {
  const parts = useMemo(() => Anser.ansiToJson(text, { use_classes: true, remove_empty: true }), [text]);
  return (
    // Focusable: a long output scrolls, and the keyboard scrolls it too.
    <pre className="terminal" aria-label={label ?? 'Terminal output'} tabIndex={0}>
      {parts.map((p, i) => {
        const cls = [p.fg ? `${p.fg}-fg` : '', p.bg ? `${p.bg}-bg` : '', p.decorations.includes('bold') ? 'ansi-bold' : ''].filter(Boolean).join(' ');
        return cls ? (
          <span key={i} className={cls}>
            {p.content}
          </span>
        ) : (
          p.content
        );
      })}
    </pre>
  );
}

export const hasAnsi = (s: string): boolean => /\u001b\[[0-9;]*m/.test(s);
