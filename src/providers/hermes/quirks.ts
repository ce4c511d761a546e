/**
 * Hermes Agent's quirk sets (specs/hermes-acp.md), by the name it gives itself in `initialize`
 * (`hermes-agent`) and its version: 0.18–0.20 drop a session's MCP servers on set_model, 0.21
 * keeps them (and answers "Session is busy" to config changes mid-turn, like the older ones
 * would rebuild the agent under a running turn: config changes wait for the turn either way).
 */
import type { PermissionMode } from '../../permission/types.js';
import type { QuirkSet } from '../quirks/types.js';
import type { HookOptions } from '../types.js';
import { readHermesConfig, summarizeConfig } from './config-lint.js';
import { hermesRoot, profileHome } from './home.js';
import { hermesHooks, hermesSetupError, hermesStrayResumeId } from './hooks.js';

/** Talaria's permission modes onto Hermes' own (default always asks for edits). */
export const HERMES_MODES: Readonly<Record<PermissionMode, string>> = {
  ask: 'default',
  'accept-edits': 'accept_edits',
  auto: 'dont_ask',
};

/** Version from which set_model keeps the session's MCP servers. */
export const HERMES_KEEPS_MCP_SINCE = '0.21.0';

/** model.supports_vision from the profile's config.yaml (undefined when there is none to read). */
function supportsVision(o: HookOptions): boolean | undefined {
  if (!o.env) return undefined;
  const text = readHermesConfig(profileHome(hermesRoot(o.env), o.profile));
  return text === undefined ? undefined : (summarizeConfig(text).supportsVision ?? false);
}

function hermesSet(id: string, label: string, versions: QuirkSet['versions'], reloadAfterSetModel: boolean): QuirkSet {
  return {
    id,
    label,
    names: /^hermes-agent$/i,
    ...(versions ? { versions } : {}),
    hintName: 'hermes-agent',
    commandHints: [/^hermes(-acp)?(\.exe)?$/i],
    hooks: (o) => {
      const vision = supportsVision(o);
      return hermesHooks({ reloadAfterSetModel, ...(vision === undefined ? {} : { supportsVision: vision }) });
    },
    host: {
      strayResumeId: hermesStrayResumeId,
      retryNewWithoutMcp: true,
      reseedOnOverflow: true,
      steer: 'slash-during-tool',
      configBetweenTurns: true,
      reloadAfterSetModel,
      describeSetupError: hermesSetupError,
      // session/list skips sessions with no history: a spare stays invisible (seed 000 §11).
      spareSessions: true,
    },
    usage: 'cumulative',
    // Sessions live in state.db; a new process loads them (set_mode is not persisted: the host re-applies it).
    sessionsSurviveRestart: true,
    modeFor: (mode) => HERMES_MODES[mode],
  };
}

/** Listed oldest first: with no version known, the first one (every workaround on) applies. */
export const HERMES_QUIRK_SETS: readonly QuirkSet[] = [
  hermesSet('hermes-0.18', 'Hermes Agent 0.18–0.20', { below: HERMES_KEEPS_MCP_SINCE }, true),
  hermesSet('hermes-0.21', 'Hermes Agent 0.21+', { min: HERMES_KEEPS_MCP_SINCE }, false),
];
