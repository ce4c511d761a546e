import { useEffect, useRef, useState } from 'react';
import type { PendingPermission } from '../api/server.js';
import { isObj, readEntry, str, type ToolView } from '../state/entries.js';
import { DiffView } from '../lazy.js';

export interface PermOption {
  optionId: string;
  name: string;
  kind: string;
}

export function readOptions(options: unknown[]): PermOption[] {
  return options.filter(isObj).map((o) => ({ optionId: str(o.optionId) ?? '', name: str(o.name) ?? str(o.optionId) ?? '?', kind: str(o.kind) ?? 'allow_once' }));
}

export interface RuleDraft {
  decision: 'allow' | 'deny';
  toolKind?: string;
  command?: string;
  pathGlob?: string;
}

/** The rule an "always" answer adds (as the server's broker narrows it: kind + exact command or paths). */
export function ruleFor(subject: unknown, decision: 'allow' | 'deny'): RuleDraft | undefined {
  if (!isObj(subject)) return undefined;
  const kind = str(subject.toolKind);
  const command = str(subject.command);
  const paths = Array.isArray(subject.paths) ? subject.paths.filter((p): p is string => typeof p === 'string') : [];
  const glob = paths.length === 0 ? undefined : paths.length === 1 ? paths[0] : `{${paths.join(',')}}`;
  if (command) return { decision, ...(kind ? { toolKind: kind } : {}), command, ...(glob ? { pathGlob: glob } : {}) };
  if (glob && kind) return { decision, toolKind: kind, pathGlob: glob };
  return undefined;
}

export type Answer = { optionId: string; rule?: RuleDraft | undefined; editedRule?: boolean };

/** Inline card under the thread: what is asked, the buttons, and "details" for the dialog. */
export function ApprovalCard({
  p,
  tool,
  readOnly,
  onAnswer,
  onDetails,
  busy,
  typing = false,
}: {
  p: PendingPermission;
  tool?: ToolView | undefined;
  readOnly: boolean;
  onAnswer: (a: Answer) => void;
  onDetails: () => void;
  busy: boolean;
  /** The focus is in a text field: the number keys type there, so the card says how to use them. */
  typing?: boolean;
}) {
  const opts = readOptions(p.options);
  const title = tool?.title ?? p.title ?? 'The agent asks for permission';
  return (
    <section className="approval-card" aria-label={`Approval needed: ${title}`} data-request={p.requestKey}>
      <header>
        <span className="badge">Approval</span> <strong>{title}</strong>
      </header>
      <Subject p={p} tool={tool} compact />
      {readOnly ? (
        <p className="muted small">Waiting for a controller to answer (this link is read-only).</p>
      ) : (
        <div className="approval-actions">
          {opts.map((o, i) => (
            <button
              key={o.optionId}
              type="button"
              className={o.kind.startsWith('allow') ? (o.kind === 'allow_once' ? 'primary' : '') : 'danger'}
              disabled={busy}
              onClick={() => onAnswer({ optionId: o.optionId })}
              aria-keyshortcuts={String(i + 1)}
            >
              {o.name} <kbd>{i + 1}</kbd>
            </button>
          ))}
          <button type="button" className="link-btn" onClick={onDetails}>
            Details… <kbd>D</kbd>
          </button>
        </div>
      )}
      {!readOnly && typing && (
        <p className="key-hint small" role="note">
          You are typing in a text box, so the keys {opts.length > 1 ? `1–${Math.min(opts.length, 9)}` : '1'} go there. Press <kbd>Tab</kbd> to leave the box, then a number key
          answers this.
        </p>
      )}
    </section>
  );
}

function Subject({ p, tool, compact }: { p: PendingPermission; tool?: ToolView | undefined; compact?: boolean }) {
  const s = isObj(p.subject) ? p.subject : {};
  const command = str(s.command);
  const paths = Array.isArray(s.paths) ? s.paths.filter((x): x is string => typeof x === 'string') : [];
  const diffs = (tool?.content ?? []).filter((c): c is Record<string, unknown> => isObj(c) && c.type === 'diff' && typeof c.path === 'string');
  return (
    <div className="subject">
      {command && (
        <p>
          Command: <code className="mono">{command}</code>
        </p>
      )}
      {paths.length > 0 && (
        <p className="small">
          {paths.length === 1 ? 'File' : 'Files'}: <span className="mono">{paths.join(', ')}</span>
        </p>
      )}
      {!compact &&
        diffs.map((d, i) => (
          <DiffView key={i} path={d.path as string} oldText={typeof d.oldText === 'string' ? d.oldText : null} newText={str(d.newText) ?? ''} initial="unified" />
        ))}
      {compact && diffs.length > 0 && <p className="small muted">The change is shown in the tool card above; “Details” opens it with the full arguments.</p>}
      {!compact && (
        <>
          <h3 className="small">Full arguments</h3>
          <pre className="json small">{JSON.stringify(tool?.rawInput ?? p.subject, null, 2)}</pre>
        </>
      )}
    </div>
  );
}

/** The dialog: full arguments and diff; allow once / always (with the rule, editable) / reject. */
export function ApprovalDialog({
  p,
  tool,
  onAnswer,
  onClose,
  busy,
}: {
  p: PendingPermission;
  tool?: ToolView | undefined;
  onAnswer: (a: Answer) => void;
  onClose: () => void;
  busy: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const opts = readOptions(p.options);
  const always = opts.find((o) => o.kind === 'allow_always');
  const base = ruleFor(p.subject, 'allow');
  const [rule, setRule] = useState<RuleDraft | undefined>(base);
  useEffect(() => {
    const d = ref.current;
    if (d && !d.open) d.showModal();
  }, []);
  const edited = JSON.stringify(rule) !== JSON.stringify(base);
  return (
    <dialog ref={ref} className="approval-dialog" aria-labelledby="approval-title" onClose={onClose} onCancel={onClose}>
      <h2 id="approval-title">{tool?.title ?? p.title ?? 'Permission requested'}</h2>
      <Subject p={p} tool={tool} />
      {always && rule && (
        <fieldset className="rule-edit">
          <legend>“{always.name}” adds this rule</legend>
          {rule.toolKind && <p className="small">Tool kind: {rule.toolKind}</p>}
          {rule.command !== undefined && (
            <label>
              Command pattern <input className="mono" value={rule.command} onChange={(e) => setRule({ ...rule, command: e.target.value })} />
            </label>
          )}
          {rule.pathGlob !== undefined && (
            <label>
              Path glob <input className="mono" value={rule.pathGlob} onChange={(e) => setRule({ ...rule, pathGlob: e.target.value })} />
            </label>
          )}
        </fieldset>
      )}
      <div className="approval-actions">
        {opts.map((o, i) => (
          <button
            key={o.optionId}
            type="button"
            disabled={busy}
            className={o.kind.startsWith('allow') ? (o.kind === 'allow_once' ? 'primary' : '') : 'danger'}
            onClick={() => onAnswer(o.kind === 'allow_always' ? { optionId: o.optionId, rule, editedRule: edited } : { optionId: o.optionId })}
          >
            {o.name} <kbd>{i + 1}</kbd>
          </button>
        ))}
        <button type="button" className="link-btn" onClick={() => ref.current?.close()}>
          Close
        </button>
      </div>
    </dialog>
  );
}

export function toolFor(entries: unknown[], toolCallId: string): ToolView | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (isObj(e) && e.kind === 'tool_call' && e.toolCallId === toolCallId) {
      const v = readEntry(e, i);
      return v.kind === 'tool_call' ? v : undefined;
    }
  }
  return undefined;
}
