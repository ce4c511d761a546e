import { useState } from 'react';

/**
 * The commands a fix text names in backticks: what a person types. A lone word counts only after
 * "run" ("run `claude` once"), not as a name ("its `hermes` executable").
 */
export function commandsIn(fix: string | undefined): string[] {
  return [...(fix ?? '').matchAll(/(\S*)\s*`([^`]+)`/g)]
    .filter((m) => m[2]!.trim().includes(' ') || /^run$/i.test(m[1]!))
    .map((m) => m[2]!.trim());
}

/** A command to type, with a Copy button; when the clipboard refuses, it says to select the text instead. */
export function CopyCommand({ command }: { command: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = (): void => {
    navigator.clipboard
      .writeText(command)
      .then(() => setState('copied'))
      .catch(() => setState('failed'));
  };
  return (
    <span className="copy-command">
      <code>{command}</code>{' '}
      <button type="button" className="small-btn" onClick={copy} aria-label={`Copy the command ${command}`}>
        Copy
      </button>
      {state === 'copied' && (
        <span className="ok small" role="status">
          Copied
        </span>
      )}
      {state === 'failed' && (
        <span className="muted small" role="status">
          {' '}
          The browser refused the clipboard: select the command and copy it.
        </span>
      )}
    </span>
  );
}

/** A fix in words, each command it names below it with a Copy button. */
export function FixText({ fix }: { fix: string | undefined }) {
  if (!fix) return null;
  return (
    <div className="fix">
      <span>{fix.replace(/`/g, '')}</span>
      {commandsIn(fix).map((c) => (
        <div key={c}>
          <CopyCommand command={c} />
        </div>
      ))}
    </div>
  );
}
