/**
 * Switching the model, the mode or any config option of a session: the request the catalog
 * plans (`session/set_config_option` when the agent has configOptions, else the legacy
 * `session/set_model` / `session/set_mode`), then the catalog the answer implies.
 */
import { applyConfigOptionUpdate, applyCurrentMode, applyCurrentModel, planSwitch } from './catalog.js';
import type { SessionCore } from './core.js';

type ConfigAnswer = { configOptions?: unknown[] } | null;
type Send = (method: string, params: unknown) => Promise<unknown>;

/** `send` defaults to the session's port (the host passes the process it is restoring the session in). */
export async function switchTo(
  s: Pick<SessionCore, 'id' | 'catalog' | 'port' | 'setCatalog'>,
  kind: 'model' | 'mode',
  id: string,
  send?: Send,
): Promise<void> {
  const plan = planSwitch(s.catalog, kind, id);
  const params = { sessionId: s.id, ...plan.params };
  const res = (await (send ? send(plan.method, params) : s.port.request(plan.method, params))) as ConfigAnswer;
  if (
    plan.method === 'session/set_config_option' &&
    Array.isArray(res?.configOptions) &&
    res.configOptions.length > 0
  ) {
    s.setCatalog(applyConfigOptionUpdate(s.catalog, res.configOptions));
  } else s.setCatalog(kind === 'model' ? applyCurrentModel(s.catalog, id) : applyCurrentMode(s.catalog, id));
}

export async function setConfigOption(s: SessionCore, configId: string, value: unknown): Promise<void> {
  const res = await s.port.request<ConfigAnswer>('session/set_config_option', { sessionId: s.id, configId, value });
  if (Array.isArray(res?.configOptions) && res.configOptions.length > 0) {
    s.setCatalog(applyConfigOptionUpdate(s.catalog, res.configOptions));
  }
}
