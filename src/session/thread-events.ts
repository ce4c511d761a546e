/**
 * A reducer change → the session event it is: entries, plan, commands, mode, config, info and
 * context. A mode or config change from the agent also moves the catalog's current choice.
 */
import type { ThreadChange } from '../thread/types.js';
import { applyConfigOptionUpdate, applyCurrentMode } from './catalog.js';
import type { EventBody, SessionCore } from './core.js';

export function emitChange(s: SessionCore, c: ThreadChange): void {
  switch (c.type) {
    case 'entry.added':
      return s.emit(c.type, { index: c.index, entry: c.entry });
    case 'entry.updated':
      return s.emit(
        c.type,
        c.appended !== undefined
          ? { index: c.index, entry: c.entry, appended: c.appended }
          : { index: c.index, entry: c.entry },
      );
    case 'plan.updated':
      return s.emit('plan.updated', c.turnId !== undefined ? { plan: c.plan, turnId: c.turnId } : { plan: c.plan });
    case 'commands.updated':
      return s.emit('commands.updated', { commands: c.commands });
    case 'mode.updated':
      s.emit('mode.updated', { modeId: c.modeId });
      return s.setCatalog(applyCurrentMode(s.catalog, c.modeId));
    case 'config.updated':
      s.emit('config.updated', { configOptions: c.configOptions });
      return s.setCatalog(applyConfigOptionUpdate(s.catalog, c.configOptions));
    case 'info.updated': {
      const body: EventBody<'info.updated'> = {};
      if (c.title !== undefined) body.title = c.title;
      if (c.updatedAt !== undefined) body.updatedAt = c.updatedAt;
      // The thread meta (agent `_meta` of session_info_update) travels along so the store keeps
      // it: Hermes' lineage across compression is only ever reported there.
      if (s.thread.meta !== undefined) body.meta = s.thread.meta;
      return s.emit('info.updated', body);
    }
    case 'context.updated':
      return s.emit('context.updated', { context: c.context });
  }
}
