import type { CommandItem } from '../state/entries.js';
import { isObj } from '../state/entries.js';
import './first-run.css';

/**
 * The demo agent's prompts, in the words its script answers (src/demo/script.ts runScript: the
 * first word picks the script). Each shows one part of Talaria; a click sends it.
 */
export const DEMO_PROMPTS: readonly { prompt: string; what: string }[] = [
  { prompt: 'tour', what: 'The showcase: thinking, a plan, a read, an edit and a command' },
  { prompt: 'plan', what: 'A plan whose steps tick off as the agent works' },
  { prompt: 'slow', what: 'A slow answer you can stop (Esc) or steer mid-turn' },
  { prompt: 'edit notes.md', what: 'A file change with its diff, after you allow it' },
  { prompt: 'run ls', what: 'A shell command and its output, after you allow it' },
];

/** Nothing to suggest once the conversation has started (a message either way). */
export function hasMessage(entries: readonly unknown[]): boolean {
  return entries.some((e) => isObj(e) && (e.kind === 'user_message' || e.kind === 'assistant_message'));
}

/**
 * What to try in an empty session: the demo agent's prompts (a click sends one), or a real
 * agent's slash commands (a click puts `/name ` in the message box, to finish and send).
 */
export function FirstRun({
  demo,
  agentLabel,
  commands,
  onSend,
  onInsert,
}: {
  demo: boolean;
  agentLabel: string;
  commands: readonly CommandItem[];
  onSend: (prompt: string) => void;
  onInsert: (text: string) => void;
}) {
  if (!demo && commands.length === 0) return null;
  return (
    <section className="first-run" aria-labelledby="first-run-title">
      <h2 id="first-run-title">{demo ? 'Try the demo agent' : `What ${agentLabel} can do`}</h2>
      <p className="muted small">
        {demo ? 'It is scripted and offline: each prompt shows a part of Talaria. Or type anything.' : 'Its commands: pick one to start your message, or just type.'}
      </p>
      <ul className="first-run-list">
        {demo
          ? DEMO_PROMPTS.map((p) => (
              <li key={p.prompt}>
                <button type="button" className="first-run-item" data-prompt={p.prompt} onClick={() => onSend(p.prompt)}>
                  <code>{p.prompt}</code>
                  <span className="first-run-what">{p.what}</span>
                </button>
              </li>
            ))
          : commands.map((c) => (
              <li key={c.name}>
                <button type="button" className="first-run-item" data-command={c.name} onClick={() => onInsert(`/${c.name} `)}>
                  <code>/{c.name}</code>
                  <span className="first-run-what">
                    {c.description}
                    {/* What goes after the command, as the agent words it. */}
                    {c.hint ? <span className="first-run-hint">{`${c.description ? ' — ' : ''}then: ${c.hint}`}</span> : null}
                  </span>
                </button>
              </li>
            ))}
      </ul>
    </section>
  );
}
