import { FixText, Words } from './copy-command.js';
import { useEffect, useRef, useState } from 'react';
import { FitAddon } from '@xterm/addon-fit';
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import './sign-in.css';
import type { ProviderInfo } from '../api/server.js';
import { openSignInPty } from '../api/sign-in.js';

type Outcome = { ok: true } | { ok: false; message: string; fix?: string | undefined };

/**
 * A terminal sign-in (issue 13): xterm.js wired to the server's pty socket, where the agent's own
 * sign-in command runs. Ends with the readiness the server checked for real: `onSignedIn` on
 * success (the page drops the gap), else the reason and a retry (a fresh socket and command).
 */
export function SignInTerminal(props: { providerId: string; label: string; methodId: string; methodName: string; onSignedIn(p: ProviderInfo): void; onClose(): void }) {
  const [attempt, setAttempt] = useState(0);
  const [outcome, setOutcome] = useState<Outcome>();
  // Refused before its command ran (the CLI it needs is missing): no empty terminal, only the reason.
  const [printed, setPrinted] = useState(false);
  const box = useRef<HTMLDivElement>(null);
  const { providerId, methodId } = props;
  const signedIn = useRef(props.onSignedIn);
  signedIn.current = props.onSignedIn;

  useEffect(() => {
    setOutcome(undefined);
    setPrinted(false);
    const term = new Terminal({ fontSize: 13, rows: 16, cursorBlink: true, convertEol: false, theme: { background: '#1e1f24' } });
    const sizer = new FitAddon();
    term.loadAddon(sizer);
    // The terminal follows the panel's size (bound once: used at open and on every resize).
    const fitToPanel = sizer.fit.bind(sizer);
    term.open(box.current!);
    // In view: xterm does not paint off screen, and this is where the person types now.
    box.current!.scrollIntoView({ block: 'nearest' });
    fitToPanel();
    let ended = false;
    const pty = openSignInPty(
      providerId,
      methodId,
      { cols: term.cols, rows: term.rows },
      {
        onBytes: (b) => {
          setPrinted(true);
          term.write(b);
        },
        onMessage(m) {
          if (m.type === 'exit') term.write(`\r\n[${m.signal ? `killed by ${m.signal}` : `exited with code ${m.code}`}; checking the sign-in…]\r\n`);
          else if (m.type === 'result') {
            ended = true;
            setOutcome(m.ok ? { ok: true } : { ok: false, message: m.provider.gaps[0]?.message ?? 'the agent is still not ready', fix: m.provider.gaps[0]?.fix });
            signedIn.current(m.provider);
          } else if (m.type === 'error') {
            ended = true;
            setOutcome({ ok: false, message: m.message, fix: m.fix });
          }
        },
        onClose(code) {
          if (!ended) setOutcome({ ok: false, message: `the connection closed before the sign-in ended (${code === 1006 ? 'refused or lost' : `code ${code}`})` });
        },
      },
    );
    const typed = term.onData((data) => pty.send({ type: 'input', data }));
    const resized = term.onResize(({ cols, rows }) => pty.send({ type: 'resize', cols, rows }));
    const watch = new ResizeObserver(() => fitToPanel());
    watch.observe(box.current!);
    term.focus();
    return () => {
      watch.disconnect();
      typed.dispose();
      resized.dispose();
      pty.close();
      term.dispose();
    };
  }, [providerId, methodId, attempt]);

  return (
    <section className="sign-in-panel" aria-label={`Sign in to ${props.label}`}>
      <header className="sign-in-head">
        <strong>
          {props.label}: {props.methodName}
        </strong>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </header>
      <div className="sign-in-term" ref={box} data-testid="sign-in-terminal" hidden={outcome?.ok === false && !printed} />
      {outcome?.ok && (
        <p className="ok" role="status">
          Signed in: {props.label} is ready.
        </p>
      )}
      {outcome && !outcome.ok && (
        <div className="error" role="alert">
          <p>
            Not signed in: <Words text={outcome.message} />
          </p>
          <FixText fix={outcome.fix} />
          <button type="button" onClick={() => setAttempt((n) => n + 1)}>
            Retry
          </button>
        </div>
      )}
    </section>
  );
}
