/** session/list by cwd: the probe's session appears under its cwd, and not under an empty other folder. */
import { codedErrorText, plural, result, short, type ProbeContext } from './context.js';
import type { SessionListing } from '../../session/client.js';
import type { CheckResult } from './types.js';

export async function checkList(ctx: ProbeContext): Promise<CheckResult> {
  const title = 'list by cwd';
  if (!ctx.client.capabilities.supportsSession('list'))
    return result('list', title, 'unsupported', 'no sessionCapabilities.list');
  const sid = ctx.session.id;
  let mine: SessionListing[];
  let other: SessionListing[];
  try {
    mine = await ctx.client.listSessions({ cwd: ctx.ws.cwd, maxPages: 20 });
    other = await ctx.client.listSessions({ cwd: ctx.ws.otherCwd, maxPages: 20 });
  } catch (err) {
    return result('list', title, 'broken', `session/list failed: ${codedErrorText(err)}`);
  }
  const found = mine.find((s) => s.sessionId === sid);
  const foreign = mine.filter((s) => typeof s.cwd === 'string' && s.cwd !== ctx.ws.cwd);
  const leaked = other.some((s) => s.sessionId === sid);
  const evidence = [
    `cwd=${ctx.ws.cwd}: ${plural(mine.length, 'session')}${found ? `, ours: ${short(found, 200)}` : ', ours missing'}`,
    `cwd=${ctx.ws.otherCwd} (empty folder): ${plural(other.length, 'session')}${leaked ? ', ours among them' : ''}`,
  ];
  const data = {
    listed: mine.length,
    found: Boolean(found),
    otherCwdListed: other.length,
    filterLeaked: leaked,
    foreignCwd: foreign.length,
  };
  if (!found)
    return result(
      'list',
      title,
      'broken',
      `the probe's session is missing from session/list for its cwd (${plural(mine.length, 'session')} listed)`,
      evidence,
      data,
    );
  if (leaked || foreign.length) {
    return result(
      'list',
      title,
      'broken',
      `the cwd filter is not honoured (${leaked ? 'our session listed under another folder' : `${plural(foreign.length, 'session')} from other folders`})`,
      evidence,
      data,
    );
  }
  const extra = found.title ? `, title "${String(found.title).slice(0, 40)}"` : '';
  return result(
    'list',
    title,
    'works',
    `session listed under its cwd${extra}; the other folder lists ${plural(other.length, 'session')}`,
    evidence,
    data,
  );
}
