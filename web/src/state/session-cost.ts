import { useEffect, useState } from 'react';
import type { AppStore } from './app-store.js';

type UsageAnswer = Awaited<ReturnType<AppStore['client']['api']['usage']>>;
/** One session's tokens and cost as `talaria usage` reports them (Hermes: its own state.db). */
export type SessionCost = UsageAnswer['sessions'][number];

/**
 * The session's cost, asked again whenever a turn ends (Hermes writes state.db as it goes; the
 * last turn's figures are there once it ended). A failed read leaves the last known figures.
 * `lastStop` is a new object at every turn's end: a short turn whose start and end arrive in one
 * batch never shows a `turnId`, and its end must still ask again.
 */
export function useSessionCost(
  store: AppStore,
  sessionId: string,
  turnId: string | undefined,
  lastStop: object | undefined,
): SessionCost | undefined {
  const [cost, setCost] = useState<SessionCost>();
  useEffect(() => {
    if (turnId !== undefined) return;
    let live = true;
    store.client.api
      .usage({ query: { session: sessionId } })
      .then((r) => {
        if (live) setCost(r.sessions[0]);
      })
      .catch(() => undefined);
    return () => {
      live = false;
    };
  }, [store, sessionId, turnId, lastStop]);
  return cost;
}
