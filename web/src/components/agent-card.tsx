import { useState } from 'react';
import type { ProviderInfo } from '../api/server.js';
import { addRegistryAgent, type RegistryAgentInfo } from '../api/registry.js';
import { gapAuthMethods } from '../api/sign-in.js';
import { ProviderPill } from './pills.js';
import { SignInMethods, type SignInMethod } from './sign-in-methods.js';
import { CopyCommand, FixText, Words } from './copy-command.js';
import type { AgentGroup } from '../state/agent-groups.js';

const STATUS: Record<AgentGroup, string> = {
  ready: 'ready',
  checking: 'not checked',
  'sign-in': 'not ready: sign in',
  install: 'not ready: not installed',
  configure: 'not ready',
};

interface Props {
  p: ProviderInfo;
  group: AgentGroup;
  focus: boolean;
  canAct: boolean;
  /** The ACP Registry entry that installs this agent, when there is one. */
  entry: RegistryAgentInfo | undefined;
  onSignedIn(p: ProviderInfo): void;
  onTerminal(m: SignInMethod): void;
  /** After an install: the page reads every agent again. */
  onInstalled(): void;
  children?: React.ReactNode;
}

/** One agent on the Agents page: its state in words, each gap in calm text with what fixes it — a button where Talaria can act, else the command to type. */
export function AgentCard({ p, group, focus, canAct, entry, onSignedIn, onTerminal, onInstalled, children }: Props) {
  return (
    <li className={`ready-item ${focus ? 'focus' : ''}`} id={`provider-${p.id}`} data-group={group} tabIndex={-1}>
      <h3>
        <ProviderPill id={p.id} label={p.label} /> <span className={group === 'ready' ? 'ok' : 'muted'}>{STATUS[group]}</span>
        {p.version && <span className="muted small"> {p.version}</span>}
      </h3>
      {p.gaps.length > 0 && (
        <ul className="gaps">
          {p.gaps.map((g, i) => (
            <li key={i}>
              {/* The methods follow as buttons: the message does not list them a second time. */}
              <span>
                <Words text={gapAuthMethods(g).length > 0 ? g.message.replace(/ Sign-in methods: .*$/s, '') : g.message} />
              </span>
              {g.code === 'not_installed' && (entry || p.npmPackage) ? (
                <InstallButton p={p} entry={entry} canAct={canAct} onInstalled={onInstalled} fix={g.fix} />
              ) : (
                <FixText fix={gapAuthMethods(g).length > 0 && g.fix ? `Or in a terminal: ${g.fix}` : g.fix} />
              )}
              {gapAuthMethods(g).length > 0 && (
                <SignInMethods provider={p} methods={gapAuthMethods(g)} canAct={canAct} onSignedIn={onSignedIn} onTerminal={onTerminal} />
              )}
            </li>
          ))}
        </ul>
      )}
      {children}
    </li>
  );
}

/**
 * Install through the route `talaria agents add` uses: the registry's entry of this id, else the
 * agent's own npm package (the server decides, by the same rule as the CLI); progress, then the
 * outcome or why it failed.
 */
function InstallButton({ p, entry, canAct, onInstalled, fix }: { p: ProviderInfo; entry: RegistryAgentInfo | undefined; canAct: boolean; onInstalled(): void; fix: string | undefined }) {
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string; fix?: string | undefined }>();
  if (entry?.installed) return <div className="fix">Installed from the ACP Registry, version {entry.installed}.</div>;
  if (!canAct)
    return (
      <div className="fix">
        <CopyCommand command={`talaria agents add ${p.id}`} />
      </div>
    );
  const install = (): void => {
    setBusy(true);
    setOutcome(undefined);
    addRegistryAgent(p.id)
      .then((r) => {
        const gap = r.provider.gaps[0];
        const from = r.installed.origin === 'npm' ? ` from npm (${r.installed.source})` : '';
        setOutcome({ ok: true, message: `Installed ${r.installed.version}${from}${gap ? `; not ready yet: ${gap.message}` : '.'}`, fix: gap?.fix });
        onInstalled();
      })
      .catch((e: unknown) => setOutcome({ ok: false, message: `Not installed: ${(e as Error).message}`, fix: (e as { fix?: string }).fix }))
      .finally(() => setBusy(false));
  };
  return (
    <div className="install">
      <button type="button" onClick={install} disabled={busy} aria-label={`Install ${p.label}`}>
        {busy ? 'Installing…' : 'Install'}
      </button>{' '}
      <span className="muted small">{entry ? `${entry.name} ${entry.version} from the ACP Registry` : `${p.npmPackage} from npm`}</span>
      {busy && (
        <span className="muted small" role="status">
          {' '}
          Installing…
        </span>
      )}
      {outcome && (
        <div className="small" role={outcome.ok ? 'status' : 'alert'}>
          {outcome.message}
          {outcome.fix && <FixText fix={outcome.fix} />}
        </div>
      )}
      {!outcome?.ok && fix && (
        <details className="small">
          <summary>Or install it by hand</summary>
          <FixText fix={fix} />
        </details>
      )}
    </div>
  );
}
