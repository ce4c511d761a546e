/**
 * Modes and model switch through the normalized catalog (configOptions or the legacy
 * set_mode / set_model): set each mode and one other model, see whether the agent confirmed
 * the new current value (in its response or an update), then restore the original.
 */
import type { CatalogSelector } from '../../session/catalog.js';
import { codedErrorText, plural, result, within, type ProbeContext } from './context.js';
import { brief, updateOf, type Recorded } from './recorder.js';
import type { CheckResult } from './types.js';

interface Switch {
  id: string;
  ok: boolean;
  confirmed: boolean;
  /** How the agent confirmed it, or why it failed. */
  how: string;
  frames: Recorded[];
}

/** Did the agent itself say `id` is now current (response configOptions, or a mode/config update)? */
function confirmation(frames: Recorded[], kind: 'model' | 'mode', id: string, sid: string): string | undefined {
  for (const r of frames) {
    const res =
      r.dir === 'agent->client' && r.msg.method === undefined
        ? (r.msg.result as { configOptions?: unknown } | undefined)
        : undefined;
    const u = updateOf(r, sid);
    const opts = Array.isArray(res?.configOptions)
      ? res.configOptions
      : u?.sessionUpdate === 'config_option_update' && Array.isArray(u.configOptions)
        ? u.configOptions
        : undefined;
    if (opts) {
      const hit = (opts as { category?: unknown; id?: unknown; currentValue?: unknown }[]).find(
        (o) => (o.category === kind || o.id === kind) && o.currentValue === id,
      );
      if (hit) return res ? 'the response configOptions show it current' : 'a config_option_update shows it current';
    }
    if (kind === 'mode' && u?.sessionUpdate === 'current_mode_update' && u.currentModeId === id)
      return 'a current_mode_update confirmed it';
  }
  return undefined;
}

async function trySwitch(ctx: ProbeContext, kind: 'model' | 'mode', id: string): Promise<Switch> {
  const from = ctx.recorder.mark();
  const call = kind === 'model' ? ctx.session.setModel(id) : ctx.session.setMode(id);
  let how = '';
  let ok = false;
  try {
    const out = await within(call, ctx.timeoutMs);
    ok = out.ok;
    if (!out.ok) how = `no answer within ${ctx.timeoutMs} ms`;
  } catch (err) {
    how = codedErrorText(err);
  }
  call.catch(() => undefined);
  const frames = ctx.recorder
    .slice(from)
    .filter((r) =>
      r.dir === 'client->agent' ? r.msg.method !== undefined && r.msg.method !== 'session/update' : true,
    );
  const confirmedBy = ok ? confirmation(frames, kind, id, ctx.session.id) : undefined;
  if (ok) how = confirmedBy ?? 'accepted, but the agent did not say it is current';
  return { id, ok, confirmed: confirmedBy !== undefined, how, frames };
}

async function checkSelector(ctx: ProbeContext, kind: 'model' | 'mode'): Promise<CheckResult> {
  const id = kind === 'model' ? 'model' : 'modes';
  const title = kind === 'model' ? 'model switch' : 'modes';
  const sel: CatalogSelector | undefined = ctx.session.catalog[kind];
  if (!sel || sel.options.length === 0)
    return result(
      id,
      title,
      'unsupported',
      `no ${kind} ${kind === 'model' ? 'catalog' : 'list'} (neither configOptions nor legacy ${kind}s)`,
    );
  if (ctx.busy) return result(id, title, 'skipped', `the session is still busy: ${ctx.busy}`);
  const original = sel.currentId;
  const others = sel.options.filter((o) => o.id !== original);
  if (others.length === 0)
    return result(id, title, 'supported', `only one ${kind} (${original ?? '?'}) to choose from`);
  const targets = kind === 'model' ? others.slice(0, 1) : others;
  const via =
    sel.source === 'config'
      ? `session/set_config_option "${sel.configId ?? kind}"`
      : kind === 'model'
        ? 'session/set_model (legacy)'
        : 'session/set_mode (legacy)';
  const switches: Switch[] = [];
  for (const o of targets) switches.push(await trySwitch(ctx, kind, o.id));
  const restore =
    original !== undefined && switches.some((s) => s.ok) ? await trySwitch(ctx, kind, original) : undefined;
  const evidence = switches.map((s) => `${s.id}: ${s.ok ? 'ok' : 'FAILED'} — ${s.how}`);
  if (restore) evidence.push(`restore ${restore.id}: ${restore.ok ? 'ok' : 'FAILED'} — ${restore.how}`);
  evidence.push(
    ...switches
      .flatMap((s) => s.frames.slice(0, 2))
      .slice(0, 4)
      .map((r) => brief(r, 200)),
  );
  const data = { via, original, switches: switches.map(({ frames: _f, ...s }) => s), restored: restore?.ok };
  const failed = switches.filter((s) => !s.ok);
  const list = targets.map((t) => t.id).join(', ');
  if (failed.length)
    return result(
      id,
      title,
      'broken',
      `via ${via}: ${failed.map((s) => `${s.id} failed (${s.how})`).join('; ')}`,
      evidence,
      data,
    );
  const unconfirmed = switches.filter((s) => !s.confirmed);
  if (unconfirmed.length) {
    return result(
      id,
      title,
      'supported',
      `via ${via}: set ${list}; accepted but not confirmed by the agent (${plural(unconfirmed.length, 'switch', 'switches')}); restored ${original ?? '?'}`,
      evidence,
      data,
    );
  }
  return result(
    id,
    title,
    'works',
    `via ${via}: set ${list}, each confirmed current by the agent; restored ${original ?? '?'}`,
    evidence,
    data,
  );
}

export async function checkCatalog(ctx: ProbeContext): Promise<CheckResult[]> {
  return [await checkSelector(ctx, 'mode'), await checkSelector(ctx, 'model')];
}
