/**
 * The Hermes provider: `hermes [-p PROFILE] acp --accept-hooks` (--accept-hooks only
 * auto-approves config.yaml shell hooks, which have no TTY under ACP), with every quirk of
 * specs/hermes-acp.md switched on through hooks and host quirks.
 */
import type { PermissionMode } from '../../permission/types.js';
import { defineProvider } from '../define.js';
import type { Provider } from '../types.js';
import { findHermes } from './binary.js';
import { readHermesConfig, summarizeConfig } from './config-lint.js';
import { hermesRoot, profileHome } from './home.js';
import { hermesHooks, hermesSetupError, hermesStrayResumeId } from './hooks.js';
import { HERMES_INSTALL, hermesReadiness, profileArgs } from './readiness.js';

/** Talaria's permission modes onto Hermes' own (default always asks for edits). */
export const HERMES_MODES: Readonly<Record<PermissionMode, string>> = {
  ask: 'default',
  'accept-edits': 'accept_edits',
  auto: 'dont_ask',
};

export const hermesProvider: Provider = defineProvider({
  id: 'hermes',
  label: 'Hermes Agent',
  install: HERMES_INSTALL,
  profiles: true,
  locate: async (ctx, o) => {
    const found = findHermes(ctx).found;
    return found ? { command: found.command, args: [...profileArgs(o?.profile), 'acp', '--accept-hooks'], via: found.via } : undefined;
  },
  readiness: hermesReadiness,
  // Hermes keeps its keys in $HERMES_HOME/.env; only where that home is needs passing on.
  env: { inherit: ['HERMES_HOME'] },
  hooks: (o) => {
    let supportsVision: boolean | undefined;
    if (o?.env) {
      const text = readHermesConfig(profileHome(hermesRoot(o.env), o.profile));
      if (text !== undefined) supportsVision = summarizeConfig(text).supportsVision ?? false;
    }
    return hermesHooks(supportsVision === undefined ? {} : { supportsVision });
  },
  quirks: {
    strayResumeId: hermesStrayResumeId,
    retryNewWithoutMcp: true,
    replaceOnOverflow: true,
    // 0.21 answers "Session is busy" mid-turn; 0.18 would rebuild the agent under a running turn.
    configBetweenTurns: true,
    reloadAfterSetModel: true,
    describeSetupError: hermesSetupError,
  },
  // Sessions live in state.db; a new process loads them (set_mode is not persisted: the host re-applies it).
  sessionsSurviveRestart: true,
  usage: 'cumulative',
  modeFor: (mode) => HERMES_MODES[mode],
});
