/** The agent facet (launcher): new sessions in one workspace, each its own revocable controller. */
import './lockdown.js';
import { makeExo } from '@endo/exo';
import type { ConnCtx } from './context.js';
import type { Gate } from './gate.js';
import { LauncherI } from './guards.js';
import { passable } from './clone.js';
import { makeSessionFacet } from './facets.js';

/** A launcher reference's target: the workspace and (optionally) the agent it is limited to. */
export interface LauncherTarget {
  workspace: string;
  provider?: string;
}

export function parseLauncherTarget(target: string): LauncherTarget {
  const t = JSON.parse(target) as LauncherTarget;
  return t;
}

export function makeLauncher(ctx: ConnCtx, gate: Gate, target: LauncherTarget): unknown {
  return makeExo('Launcher', LauncherI, {
    async newSession(opts?: unknown) {
      gate.check('newSession');
      const o = (opts ?? {}) as { provider?: string; profile?: string };
      const provider = target.provider ?? o.provider;
      const hs = await ctx.harness.workspaces
        .open(target.workspace)
        .newSession({ ...(provider ? { provider } : {}), ...(o.profile ? { profile: o.profile } : {}) });
      const ls = ctx.live.adopt(hs);
      // The session's own reference is a child of the launcher's: revoking the launcher cuts it too.
      const minted = ctx.refs.mint({
        facet: 'controller',
        target: hs.id,
        parentId: gate.refId,
        label: `session of ${target.workspace}`,
      });
      return makeSessionFacet(ctx, ctx.gate(minted.row), ls, 'controller');
    },
    info() {
      gate.check('info');
      return passable({ workspace: target.workspace, provider: target.provider ?? '' });
    },
  });
}
