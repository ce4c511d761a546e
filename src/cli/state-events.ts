/**
 * A session's state as events. The host opens a session (early updates, a load's replayed
 * history, the catalog) before anyone can subscribe to it, so the CLI hands its renderers and
 * `--ndjson` writer that state as the events that built it, then the live events.
 */
import type { EventOf, SessionEvent } from '../session/events.js';
import type { Session } from '../session/session.js';

export function stateEvents(session: Session): SessionEvent[] {
  const out: SessionEvent[] = [];
  const at = Date.now();
  const push = <K extends SessionEvent['type']>(type: K, body: Omit<EventOf<K>, 'type' | 'sessionId' | 'seq' | 'at'>) =>
    out.push({ type, sessionId: session.id, seq: 0, at, ...body } as unknown as SessionEvent);
  const t = session.thread;
  t.entries.forEach((entry, index) => push('entry.added', { index, entry }));
  if (t.plan) push('plan.updated', { plan: t.plan });
  if (t.availableCommands.length > 0) push('commands.updated', { commands: t.availableCommands });
  if (t.currentModeId !== undefined) push('mode.updated', { modeId: t.currentModeId });
  if (t.configOptions !== undefined) push('config.updated', { configOptions: t.configOptions });
  if (t.title !== undefined || t.updatedAt !== undefined) {
    push('info.updated', {
      ...(t.title !== undefined ? { title: t.title } : {}),
      ...(t.updatedAt !== undefined ? { updatedAt: t.updatedAt } : {}),
    });
  }
  if (Object.keys(t.context).length > 0) push('context.updated', { context: t.context });
  const c = session.catalog;
  if (c.model || c.mode || c.others.length > 0) push('catalog.updated', { catalog: c });
  return out;
}
