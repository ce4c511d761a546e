/**
 * Per workspace and agent (provider + profile): the model and mode new sessions start with,
 * chosen by a person (`talaria models --set ID` without --session).
 */
import type { SqlDb } from './sql.js';

export interface AgentDefaults {
  modelId?: string;
  modeId?: string;
}

interface Row {
  model_id: string | null;
  mode_id: string | null;
}

export type DefaultsRepo = ReturnType<typeof createDefaultsRepo>;

export function createDefaultsRepo(db: SqlDb, now: () => number = Date.now) {
  const get = db.prepare<[string, string, string], Row>(
    'SELECT model_id, mode_id FROM agent_defaults WHERE workspace_id = ? AND provider = ? AND profile = ?',
  );
  const upsert = {
    model: db.prepare(
      `INSERT INTO agent_defaults (workspace_id, provider, profile, model_id, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, provider, profile) DO UPDATE SET model_id = excluded.model_id, updated_at = excluded.updated_at`,
    ),
    mode: db.prepare(
      `INSERT INTO agent_defaults (workspace_id, provider, profile, mode_id, updated_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (workspace_id, provider, profile) DO UPDATE SET mode_id = excluded.mode_id, updated_at = excluded.updated_at`,
    ),
  };
  return {
    get(workspaceId: string, provider: string, profile?: string): AgentDefaults {
      const r = get.get(workspaceId, provider, profile ?? '');
      const out: AgentDefaults = {};
      if (r?.model_id) out.modelId = r.model_id;
      if (r?.mode_id) out.modeId = r.mode_id;
      return out;
    },
    set(
      workspaceId: string,
      provider: string,
      profile: string | undefined,
      kind: 'model' | 'mode',
      value: string | null,
    ): void {
      upsert[kind].run(workspaceId, provider, profile ?? '', value, now());
    },
  };
}
