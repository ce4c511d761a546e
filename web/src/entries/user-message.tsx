import { useState } from 'react';
import { describeError } from '../api/server.js';
import type { MessageView } from '../state/entries.js';
import { useThreadActions } from '../state/thread-actions.js';

/**
 * A user message: Edit (change it and resend: the conversation branches here, issue 14) and,
 * when it has other versions (branches made at this point), ‹ i/n › to move between them.
 */
export function UserMessage({ e }: { e: MessageView }) {
  const actions = useThreadActions();
  const [draft, setDraft] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  const v = actions?.versions(e.id);
  const text = e.text;

  const submit = (): void => {
    if (!actions || draft === undefined || draft.trim() === '' || busy) return;
    setBusy(true);
    setErr(undefined);
    actions.edit(e.id, draft).then(
      () => {
        setBusy(false);
        setDraft(undefined);
      },
      (x: unknown) => {
        setBusy(false);
        const d = describeError(x);
        setErr(d.fix ? `${d.message} — ${d.fix}` : d.message);
      },
    );
  };

  if (draft !== undefined)
    return (
      <div className="msg user" data-kind="user">
        <form
          className="bubble editing"
          onSubmit={(ev) => {
            ev.preventDefault();
            submit();
          }}
        >
          <textarea
            className="edit-box"
            aria-label="Edited message"
            value={draft}
            rows={Math.min(10, Math.max(2, draft.split('\n').length))}
            autoFocus
            onChange={(ev) => setDraft(ev.target.value)}
            onKeyDown={(ev) => {
              if (ev.key === 'Escape') setDraft(undefined);
              else if (ev.key === 'Enter' && (ev.ctrlKey || ev.metaKey)) {
                ev.preventDefault();
                submit();
              }
            }}
          />
          <p className="muted small">Sending starts a new branch from here; this one stays as it is.</p>
          {err && (
            <p className="error small" role="alert">
              {err}
            </p>
          )}
          <div className="edit-actions">
            <button type="button" onClick={() => setDraft(undefined)} disabled={busy}>
              Cancel
            </button>
            <button type="submit" className="primary" disabled={busy || draft.trim() === ''}>
              {busy ? 'Branching…' : 'Send as a new branch'}
            </button>
          </div>
        </form>
      </div>
    );

  return (
    <div className="msg user" data-kind="user">
      <div className="user-col">
        <div className="bubble">
          <span className="sr-only">You said: </span>
          <p className="user-text">{text}</p>
          {e.blocks.length > 0 && (
            <p className="muted small">
              {e.blocks.length} attachment{e.blocks.length === 1 ? '' : 's'}
            </p>
          )}
        </div>
        <div className="user-tools">
          {v && v.ids.length > 1 && (
            <span className="versions" role="group" aria-label="Versions of this message">
              <button type="button" className="icon-btn" aria-label="Previous version" disabled={v.index <= 0} onClick={() => actions?.open(v.ids[v.index - 1]!)}>
                ‹
              </button>
              <span className="small" aria-label={`Version ${v.index + 1} of ${v.ids.length}`}>
                {v.index + 1}/{v.ids.length}
              </span>
              <button type="button" className="icon-btn" aria-label="Next version" disabled={v.index >= v.ids.length - 1} onClick={() => actions?.open(v.ids[v.index + 1]!)}>
                ›
              </button>
            </span>
          )}
          {actions && !actions.readOnly && (
            <button type="button" className="link-btn small" aria-label="Edit message" onClick={() => setDraft(text)}>
              Edit
            </button>
          )}
        </div>
      </div>
    </div>
  );
}
