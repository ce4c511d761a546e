import { useCallback, useEffect, useMemo, useState } from 'react';
import { describeError, type BranchNodeInfo } from '../api/server.js';
import { branchPoints } from '../state/branches.js';
import { isObj } from '../state/entries.js';
import { ThreadActionsContext, type ThreadActions } from '../state/thread-actions.js';
import { useApp, useSession, type AppStore } from '../state/app-store.js';
import { copyPlanAt } from '../state/session-store.js';
import { SessionHeader } from '../components/session-header.js';
import { HermesProfilePicker } from '../components/hermes-profile.js';
import { ThreadView } from '../components/thread-view.js';
import { Composer, type Image } from '../components/composer.js';
import { ApprovalCard, ApprovalDialog, readOptions, toolFor, type Answer } from '../components/approval.js';
import { go, href } from '../router.js';
import { SignInNeeded } from '../components/sign-in-needed.js';
import { FirstRun, hasMessage } from '../components/first-run.js';
import { TurnEnd } from '../components/turn-end.js';
import { RecordingBanner } from '../components/recording-banner.js';
import { HostOfflineBanner } from '../components/host-offline.js';
import { useSessionCost } from '../state/session-cost.js';
import { answeredBy, useTyping } from './session-helpers.js';
import { authGapOf } from '../api/sign-in.js';
import type { ProviderInfo } from '../api/server.js';
import { Spinner } from '../components/motion.js';

/** One session: header, thread, plan, approvals, composer. */
export function SessionPage({ store, id }: { store: AppStore; id: string }) {
  const app = useApp(store);
  const sstore = useMemo(() => store.session(id), [store, id]);
  const view = useSession(sstore);
  const cost = useSessionCost(store, id, view.turnId, view.lastStop);
  const readOnly = app.role !== 'controller';
  const [dialogFor, setDialogFor] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [err, setErr] = useState<string>();
  // An answer that lost the race to another client's: a calm notice, not an error.
  const [lost, setLost] = useState<string>();
  const typing = useTyping();
  // A slash command picked in an empty session, for the composer (first-run.tsx).
  const [draft, setDraft] = useState<{ text: string; n: number }>();
  const api = store.client.api;
  // The list's summary is live (session.updated); the snapshot's is from when it was taken.
  const summary = app.sessions.find((s) => s.id === id) ?? view.summary;
  const provider = app.providers.find((p) => p.id === summary?.provider);
  const wsOf = app.workspaces.find((w) => w.id === summary?.workspaceId);
  const running = view.turnId !== undefined || view.state === 'running' || view.state === 'cancelling';

  const act = useCallback((p: Promise<unknown>) => {
    setErr(undefined);
    p.catch((e: unknown) => {
      const d = describeError(e);
      setErr(d.fix ? `${d.message} — ${d.fix}` : d.message);
    });
  }, []);

  const answer = useCallback(
    (requestKey: string, a: Answer) => {
      setBusy(true);
      const rule = a.rule;
      const run = async (): Promise<void> => {
        // An edited "always" rule: answer once and keep exactly the rule the person wrote (one request).
        if (a.editedRule && rule) {
          const p = view.pending.find((x) => x.requestKey === requestKey);
          const once = p ? readOptions(p.options).find((o) => o.kind === 'allow_once') : undefined;
          await api.answerPermission({ params: { id, requestKey }, body: { optionId: once?.optionId ?? a.optionId, rule: { ...rule, source: 'always-answer' } } });
        } else await api.answerPermission({ params: { id, requestKey }, body: { optionId: a.optionId } });
      };
      setLost(undefined);
      act(
        run()
          .catch((e: unknown) => {
            const by = answeredBy(e);
            if (by === undefined) throw e;
            setLost(by === app.label ? `${by} (this link, in another tab or device)` : by);
          })
          .finally(() => {
            setBusy(false);
            setDialogFor(undefined);
          }),
      );
    },
    [api, id, act, view.pending, app.label],
  );

  // The branch tree (issue 14): versions of edited messages. Read again when the session list
  // changes (a branch made here or elsewhere is a new session).
  const [tree, setTree] = useState<BranchNodeInfo>();
  const listed = app.sessions.length;
  useEffect(() => {
    let live = true;
    api.branches({ params: { id } }).then(
      (r) => {
        if (live) setTree(r.tree);
      },
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [api, id, listed]);
  // Only user messages' ids matter: a streamed chunk does not change the points (nor re-render rows).
  const userIds = view.entries
    .filter((e) => isObj(e) && (e.kind === 'user_message' || (e.kind === 'notice' && e.code === 'branched')))
    .map((e) => String((e as { id?: unknown }).id))
    .join(' ');
  // (userIds stands for the entries branchPoints reads.)
  const points = useMemo(() => branchPoints(tree, id, view.entries), [tree, id, userIds]);
  const actions = useMemo<ThreadActions>(
    () => ({
      readOnly,
      versions: (entryId) => points.versions.get(entryId),
      open: (sid) => go(href.session(sid)),
      edit: async (entryId, text) => {
        const { from, at } = points.editFrom(entryId);
        const r = await api.createBranch({ params: { id: from }, body: { at, text } });
        copyPlanAt(from, r.snapshot.session.id);
        store.upsertSession(r.snapshot.session);
        go(href.session(r.snapshot.session.id));
      },
    }),
    [readOnly, points, api, store],
  );

  const first = view.pending[0];
  // A new request takes the focus when it would interrupt nothing (empty composer or no focus),
  // so its one-key answers work at once; the composer gets it back after the answer.
  const firstKey = first?.requestKey;
  useEffect(() => {
    if (readOnly) return;
    const a = document.activeElement as HTMLElement | null;
    const composer = document.querySelector<HTMLTextAreaElement>('textarea[aria-label="Message to the agent"]');
    if (firstKey) {
      const idle = !a || a === document.body || (a === composer && composer.value === '');
      if (idle) document.querySelector<HTMLButtonElement>(`[data-request="${CSS.escape(firstKey)}"] .approval-actions button`)?.focus();
    } else if (a === document.body || a?.closest('.approval-card')) composer?.focus();
  }, [firstKey, readOnly]);
  // Keyboard: 1..9 answer the first pending request, D opens its details (not while typing).
  useEffect(() => {
    if (!first || readOnly) return;
    const on = (e: KeyboardEvent): void => {
      const t = e.target as HTMLElement | null;
      if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'INPUT' || t.tagName === 'SELECT')) return;
      if (e.ctrlKey || e.metaKey || e.altKey) return;
      const opts = readOptions(first.options);
      const n = Number(e.key);
      if (n >= 1 && n <= opts.length) {
        e.preventDefault();
        answer(first.requestKey, { optionId: opts[n - 1]!.optionId });
      } else if (e.key === 'd' || e.key === 'D') {
        e.preventDefault();
        setDialogFor(first.requestKey);
      }
    };
    window.addEventListener('keydown', on);
    return () => window.removeEventListener('keydown', on);
  }, [first, readOnly, answer]);

  const send = async (text: string, images: Image[]): Promise<void> => {
    if (summary && !summary.live) await api.openSession({ params: { id }, body: {} });
    await api.prompt({ params: { id }, body: { text, images: images.map(({ mimeType, data }) => ({ mimeType, data })) } });
  };

  // A prompt the agent refused for want of a sign-in (issue 13): the sign-in, then the same text again.
  const authStop = view.lastStop?.error?.code === 'auth_required' ? view.lastStop : undefined;
  const [signIn, setSignIn] = useState<{ provider: ProviderInfo; text: string; images: Image[]; stop: unknown }>();
  const [handled, setHandled] = useState<unknown>();
  useEffect(() => {
    const agent = summary?.provider;
    if (!authStop || readOnly || !agent || handled === authStop) return;
    const lastUser = [...view.entries].reverse().find((e) => isObj(e) && e.kind === 'user_message') as { text?: unknown; blocks?: unknown } | undefined;
    const text = typeof lastUser?.text === 'string' ? lastUser.text : '';
    // The refused prompt's images go again with its text (the thread keeps them as blocks).
    const images: Image[] = (Array.isArray(lastUser?.blocks) ? lastUser.blocks : []).flatMap((b: unknown, i: number) =>
      isObj(b) && b.type === 'image' && typeof b.mimeType === 'string' && typeof b.data === 'string' ? [{ mimeType: b.mimeType, data: b.data, name: `image-${i + 1}` }] : [],
    );
    let live = true;
    authGapOf(agent).then(
      (p) => live && p && setSignIn({ provider: p, text, images, stop: authStop }),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [authStop, readOnly, summary?.provider, handled, view.entries]);

  // Continue the conversation in a new session seeded with it (issue 14): with another agent, or
  // on this host when the session's host is offline (a fleet, docs/fleet.md §4). One road for both.
  const continueWith = (p: string): void =>
    act(
      api.createBranch({ params: { id }, body: { provider: p } }).then((r) => {
        copyPlanAt(id, r.snapshot.session.id);
        store.upsertSession(r.snapshot.session);
        go(href.session(r.snapshot.session.id));
      }),
    );

  if (!view.loaded)
    return (
      <div className="loading" role="status">
        Loading the session…
      </div>
    );
  const dialog = view.pending.find((p) => p.requestKey === dialogFor);

  return (
    <div className="session-page">
      <SessionHeader
        view={view}
        cost={cost}
        summary={summary}
        providerLabel={provider?.label}
        agentPill={
          // A Hermes session's pill says its profile and picks the one for new sessions of its workspace.
          summary?.provider === 'hermes' && wsOf && !readOnly ? (
            <HermesProfilePicker store={store} workspace={wsOf} label={provider?.label ?? 'Hermes'} shown={summary.profile ?? 'active'} readOnly={readOnly} />
          ) : undefined
        }
        readOnly={readOnly}
        providers={app.providers}
        onProvider={(p) => {
          const ws = summary?.workspaceId;
          if (!ws || p === summary?.provider) return;
          // A session with no message costs nothing to replace: the new agent's session takes its
          // place and the empty one is archived (the sidebar does not list empty archived sessions).
          act(
            api.createSession({ params: { id: ws }, body: { provider: p } }).then(async ({ snapshot }) => {
              store.upsertSession(snapshot.session);
              go(href.session(snapshot.session.id));
              const r = await api.archive({ params: { id }, body: { archived: true } });
              store.upsertSession(r.session);
            }),
          );
        }}
        onModel={(m) => act(api.setModel({ params: { id }, body: { modelId: m } }))}
        onMode={(m) => act(api.setMode({ params: { id }, body: { modeId: m } }))}
        onArchive={() => act(api.archive({ params: { id }, body: { archived: !summary?.archived } }).then((r) => store.upsertSession(r.session)))}
        onContinue={continueWith}
        onFork={() =>
          act(
            api.fork({ params: { id } }).then((r) => {
              copyPlanAt(id, r.snapshot.session.id);
              store.upsertSession(r.snapshot.session);
              go(href.session(r.snapshot.session.id));
            }),
          )
        }
        exportHref={(f) => `/api/sessions/${encodeURIComponent(id)}/export?format=${f}`}
      />
      <RecordingBanner recording={view.recording} />
      <HostOfflineBanner summary={summary} providers={app.providers} readOnly={readOnly} onContinue={continueWith} />
      {err && (
        <p className="error banner" role="alert">
          {err}
        </p>
      )}
      {lost && (
        <p className="notice notice-info banner answered-elsewhere" role="status">
          <span className="notice-icon" aria-hidden="true">
            i
          </span>
          <span>Already answered by {lost}: that answer stands.</span>
          <button type="button" className="icon-btn" aria-label="Dismiss" onClick={() => setLost(undefined)}>
            ×
          </button>
        </p>
      )}
      {signIn && (
        <SignInNeeded
          provider={signIn.provider}
          waiting="your message"
          onCancel={() => {
            setHandled(signIn.stop);
            setSignIn(undefined);
          }}
          onSignedIn={() => {
            setHandled(signIn.stop);
            setSignIn(undefined);
            void store.loadReadiness(false);
            if (signIn.text || signIn.images.length > 0) act(send(signIn.text, signIn.images));
          }}
        />
      )}
      <ThreadActionsContext.Provider value={actions}>
        <ThreadView
          view={view}
          footer={
            <div className="thread-foot">
              {!readOnly && !running && view.queue.length === 0 && !hasMessage(view.entries) && (
                <FirstRun
                  demo={summary?.provider === 'demo'}
                  agentLabel={provider?.label ?? summary?.provider ?? 'The agent'}
                  commands={view.commands}
                  onSend={(prompt) => act(send(prompt, []))}
                  onInsert={(text) => setDraft((d) => ({ text, n: (d?.n ?? 0) + 1 }))}
                />
              )}
              {view.pending.map((p) => (
                <ApprovalCard
                  key={p.requestKey}
                  p={p}
                  tool={toolFor(view.entries, p.toolCallId)}
                  readOnly={readOnly}
                  busy={busy}
                  onAnswer={(a) => answer(p.requestKey, a)}
                  onDetails={() => setDialogFor(p.requestKey)}
                  typing={typing && p.requestKey === first?.requestKey}
                />
              ))}
              {running && view.pending.length === 0 && (
                <div className="working muted small" role="status">
                  <Spinner /> {view.state === 'cancelling' ? 'Cancelling…' : 'Working…'}
                </div>
              )}
              {!running && view.lastStop && view.lastStop.stopReason !== 'end_turn' && <TurnEnd stop={view.lastStop} entries={view.entries} />}
            </div>
          }
        />
      </ThreadActionsContext.Provider>
      {/* What a screen reader hears: the turn's state and approvals, not every streamed word. */}
      <div className="sr-only" role="status" aria-live="polite">
        {view.pending.length > 0
          ? `Approval needed: ${view.pending[0]!.title ?? 'a tool call'}`
          : running
            ? 'The agent is working'
            : view.lastStop
              ? `Turn ended: ${view.lastStop.stopReason}`
              : ''}
      </div>
      <Composer
        running={running}
        readOnly={readOnly}
        takesImages={view.agent?.images}
        queue={view.queue}
        onSend={send}
        onCancel={() => act(api.cancel({ params: { id } }))}
        onRemoveQueued={(item) => act(api.removeQueued({ params: { id, item } }))}
        onSteer={async (text) => void (await api.steer({ params: { id }, body: { text } }))}
        onSteerQueued={async (queued) => void (await api.steer({ params: { id }, body: { queued } }))}
        draft={draft}
      />
      {dialog && !readOnly && (
        <ApprovalDialog
          p={dialog}
          tool={toolFor(view.entries, dialog.toolCallId)}
          busy={busy}
          onAnswer={(a) => answer(dialog.requestKey, a)}
          onClose={() => setDialogFor(undefined)}
        />
      )}
    </div>
  );
}
