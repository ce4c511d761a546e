import { useEffect, useRef, useState } from 'react';
import type { QueuedPrompt } from '../api/server.js';

export type SendKey = 'enter' | 'ctrl-enter';
const SEND_KEY = 'talaria.sendKey';
export const loadSendKey = (): SendKey => (localStorage.getItem(SEND_KEY) === 'ctrl-enter' ? 'ctrl-enter' : 'enter');
export const saveSendKey = (k: SendKey): void => localStorage.setItem(SEND_KEY, k);

export interface Image {
  mimeType: string;
  data: string;
  name: string;
}

/**
 * The prompt box. Enter (or Ctrl+Enter, configurable) sends; Esc cancels the running turn and
 * keeps what is typed. Images are taken only when the agent accepts them; otherwise a visible
 * note says they were not attached. Prompts sent while a turn runs wait in a visible queue.
 */
export function Composer({
  running,
  readOnly,
  takesImages,
  queue,
  onSend,
  onCancel,
  onRemoveQueued,
  onSteer,
  onSteerQueued,
  draft,
}: {
  running: boolean;
  readOnly: boolean;
  takesImages: boolean | undefined;
  queue: QueuedPrompt[];
  onSend: (text: string, images: Image[]) => Promise<void>;
  onCancel: () => void;
  onRemoveQueued: (id: string) => void;
  /** "Steer now": into the running turn instead of after it (the agent's own way, else cancel and resend). */
  onSteer: (text: string) => Promise<void>;
  /** "Steer now" on a queued prompt: the server takes it off the queue and steers it, in one step. */
  onSteerQueued: (itemId: string) => Promise<void>;
  /** Text put in the box from outside (a slash command picked in an empty session); `n` tells two picks apart. */
  draft?: { text: string; n: number } | undefined;
}) {
  const [text, setText] = useState('');
  const [images, setImages] = useState<Image[]>([]);
  const [note, setNote] = useState<string>();
  const [err, setErr] = useState<string>();
  const [sendKey, setSendKey] = useState<SendKey>(loadSendKey);
  const ta = useRef<HTMLTextAreaElement>(null);
  const file = useRef<HTMLInputElement>(null);

  useEffect(() => {
    if (!draft) return;
    setText(draft.text);
    // The person goes on typing after the command: focus at its end.
    const el = ta.current;
    if (el) {
      el.focus();
      requestAnimationFrame(() => el.setSelectionRange(draft.text.length, draft.text.length));
    }
  }, [draft]);

  useEffect(() => {
    const onKey = (e: KeyboardEvent): void => {
      if (e.key === 'Escape' && running && !readOnly && !document.querySelector('dialog[open]')) {
        e.preventDefault();
        onCancel();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [running, readOnly, onCancel]);

  const addFiles = (files: File[]): void => {
    const imgs = files.filter((f) => f.type.startsWith('image/'));
    if (imgs.length === 0) return;
    if (!takesImages) {
      setNote(`This agent does not take images: ${imgs.map((f) => f.name || 'pasted image').join(', ')} not attached.`);
      return;
    }
    setNote(undefined);
    for (const f of imgs) {
      const r = new FileReader();
      r.onload = () => {
        const data = String(r.result).replace(/^data:[^,]*,/, '');
        setImages((xs) => [...xs, { mimeType: f.type, data, name: f.name || 'pasted image' }]);
      };
      r.readAsDataURL(f);
    }
  };

  const send = (): void => {
    const t = text;
    const imgs = images;
    if (t.trim() === '' && imgs.length === 0) return;
    setText('');
    setImages([]);
    setErr(undefined);
    onSend(t, imgs).catch((e: unknown) => {
      // Nothing is lost: the text comes back to the box with the reason.
      setText(t);
      setImages(imgs);
      setErr(e instanceof Error ? e.message : String(e));
    });
  };

  const steer = (t: string, restore: boolean): void => {
    if (t.trim() === '') return;
    if (restore) setText('');
    setErr(undefined);
    onSteer(t).catch((e: unknown) => {
      if (restore) setText(t);
      setErr(e instanceof Error ? e.message : String(e));
    });
  };

  if (readOnly) return <div className="composer read-only muted">Read-only: this link can watch, not prompt.</div>;

  return (
    <div
      className="composer"
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault();
        addFiles([...e.dataTransfer.files]);
      }}
    >
      {queue.length > 0 && (
        <ul className="queue" aria-label="Queued prompts">
          {queue.map((q) => (
            <li key={q.id}>
              <span className="muted small">Queued #{q.position}</span> <span className="queue-text">{q.text || `${q.images} image(s)`}</span>
              {running && q.text.trim() !== '' && q.images === 0 && (
                <button
                  type="button"
                  className="link-btn small"
                  aria-label={`Steer now with queued prompt: ${q.text.slice(0, 40)}`}
                  onClick={() => {
                    setErr(undefined);
                    onSteerQueued(q.id).catch((e: unknown) => setErr(e instanceof Error ? e.message : String(e)));
                  }}
                >
                  Steer now
                </button>
              )}
              <button type="button" className="icon-btn" aria-label={`Remove queued prompt: ${q.text.slice(0, 40)}`} onClick={() => onRemoveQueued(q.id)}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {images.length > 0 && (
        <ul className="attachments" aria-label="Attached images">
          {images.map((im, i) => (
            <li key={i}>
              <img alt={im.name} src={`data:${im.mimeType};base64,${im.data}`} />
              <button type="button" className="icon-btn" aria-label={`Remove ${im.name}`} onClick={() => setImages((xs) => xs.filter((_, j) => j !== i))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {note && (
        <p className="note small" role="status">
          {note}
        </p>
      )}
      {err && (
        <p className="error small" role="alert">
          {err}
        </p>
      )}
      <div className="composer-row">
        <textarea
          ref={ta}
          aria-label="Message to the agent"
          placeholder={running ? 'The agent is working: what you send now is queued' : 'Ask the agent…'}
          value={text}
          rows={Math.min(8, Math.max(1, text.split('\n').length))}
          onChange={(e) => setText(e.target.value)}
          onPaste={(e) => addFiles([...e.clipboardData.files])}
          onKeyDown={(e) => {
            if (e.key !== 'Enter' || e.nativeEvent.isComposing) return;
            const ctrl = e.ctrlKey || e.metaKey;
            if ((sendKey === 'enter' && !e.shiftKey && !ctrl) || (sendKey === 'ctrl-enter' && ctrl)) {
              e.preventDefault();
              send();
            }
          }}
        />
        <input
          ref={file}
          type="file"
          accept="image/*"
          multiple
          hidden
          aria-label="Image file"
          onChange={(e) => {
            addFiles([...(e.target.files ?? [])]);
            e.target.value = '';
          }}
        />
        {/* One group: beside the box when there is room, on its own line under it when not (a phone during a turn). */}
        <div className="composer-actions">
          <button
            type="button"
            className="icon-btn attach"
            aria-label="Attach an image"
            title={takesImages === false ? 'This agent does not take images' : 'Attach an image (or paste, or drop)'}
            onClick={() => file.current?.click()}
          >
            <svg width="18" height="18" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" aria-hidden="true">
              <path d="M10.5 4.5l-5 5a1.4 1.4 0 0 0 2 2l5.5-5.5a2.8 2.8 0 0 0-4-4L3.5 7.5a4.2 4.2 0 0 0 6 6l4-4" />
            </svg>
          </button>
          {running ? (
            <button type="button" className="danger" onClick={onCancel} aria-keyshortcuts="Escape">
              Stop <kbd>Esc</kbd>
            </button>
          ) : null}
          {running && (
            <button type="button" onClick={() => steer(text, true)} disabled={text.trim() === '' || images.length > 0} title="Into the running turn, instead of after it">
              Steer now
            </button>
          )}
          <button type="button" className="primary" onClick={send} disabled={text.trim() === '' && images.length === 0}>
            {running ? 'Queue' : 'Send'}
          </button>
        </div>
      </div>
      <div className="composer-foot muted small">
        <label>
          Send with{' '}
          <select
            value={sendKey}
            onChange={(e) => {
              const k = e.target.value as SendKey;
              setSendKey(k);
              saveSendKey(k);
            }}
          >
            <option value="enter">Enter (Shift+Enter: new line)</option>
            <option value="ctrl-enter">Ctrl+Enter (Enter: new line)</option>
          </select>
        </label>
        {takesImages === false && <span> · this agent does not take images</span>}
      </div>
    </div>
  );
}
