import { useState } from 'react';

/**
 * A backticked part of a fix is a command to type when it has a space, or is a lone word after
 * "run" ("run `claude` once"); not a name ("its `hermes` executable") nor a config line
 * (`provider: custom`, a YAML key and its value).
 */
const isCommand = (code: string, before: string): boolean =>
  !/^[\w.-]+:\s/.test(code.trim()) && (code.trim().includes(' ') || /\brun\s*$/i.test(before));

/** Text with `backticked` parts as code; commands among them (isCommand) with a Copy button. */
export function Words({ text }: { text: string }) {
  const parts = text.split('`');
  return (
    <>
      {parts.map((part, i) =>
        i % 2 === 0 || i === parts.length - 1 ? (
          <span key={i}>{i % 2 === 0 ? part : `\`${part}`}</span>
        ) : isCommand(part, parts[i - 1]!) ? (
          <CopyCommand key={i} command={part.trim()} />
        ) : (
          <code key={i}>{part}</code>
        ),
      )}
    </>
  );
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

/** A fix in words, each command in it with a Copy button. */
export function FixText({ fix }: { fix: string | undefined }) {
  if (!fix) return null;
  return (
    <div className="fix">
      <Words text={fix} />
    </div>
  );
}
