/**
 * Every known quirk set, and how one is chosen: before `initialize` from what the launch says
 * (a built-in id, a command line naming the agent, an earlier process of the same command), then
 * from what the agent says in `initialize` (`agentInfo.name` + version), which always wins.
 */
import { HERMES_QUIRK_SETS } from '../hermes/quirks.js';
import { compareVersions, parseVersion } from '../command-output.js';
import { claudeQuirks } from './claude.js';
import { copilotQuirks } from './copilot.js';
import { cursorQuirks } from './cursor.js';
import { geminiQuirks } from './gemini.js';
import { piQuirks } from './pi.js';
import { qwenQuirks } from './qwen.js';
import type { QuirkChoice, QuirkSet, VersionRange } from './types.js';

/** ACP as specified: no hook, no capability switched off. */
export const GENERIC_QUIRKS: QuirkSet = { id: 'generic', label: 'generic (ACP as specified)', names: /(?!)/ };

/** Sets of one agent are listed oldest version range first. */
export const QUIRK_SETS: readonly QuirkSet[] = [
  ...HERMES_QUIRK_SETS,
  claudeQuirks,
  geminiQuirks,
  qwenQuirks,
  copilotQuirks,
  piQuirks,
  cursorQuirks,
];

export function quirkSet(id: string): QuirkSet | undefined {
  return id === GENERIC_QUIRKS.id ? GENERIC_QUIRKS : QUIRK_SETS.find((s) => s.id === id);
}

export function inRange(version: string, r: VersionRange | undefined): boolean {
  if (!r) return true;
  if (r.min !== undefined && compareVersions(version, r.min) < 0) return false;
  if (r.below !== undefined && compareVersions(version, r.below) >= 0) return false;
  return true;
}

export function describeRange(r: VersionRange | undefined): string {
  if (!r || (r.min === undefined && r.below === undefined)) return 'any version';
  if (r.min !== undefined && r.below !== undefined) return `versions ${r.min} to below ${r.below}`;
  return r.min !== undefined ? `versions ${r.min} and later` : `versions below ${r.below}`;
}

/**
 * The set for an agent name and version. An unknown or unparsable version gets the agent's first
 * (oldest) set, which carries every workaround; a version outside every range gets the nearest.
 */
export function setForAgent(
  name: string,
  version?: string,
  said?: AgentMarks,
): { set: QuirkSet; versionKnown: boolean } | undefined {
  const base = name.replace(/^@[^/]+\//, '');
  let sets = QUIRK_SETS.filter((s) => s.names.test(name) || s.names.test(base));
  if (sets.length === 0 && said)
    sets = QUIRK_SETS.filter((s) =>
      s.fingerprint?.({
        ...(said.title !== undefined ? { title: said.title } : {}),
        authMethodIds: said.authMethodIds ?? [],
      }),
    );
  if (sets.length === 0) return undefined;
  const v = version !== undefined ? parseVersion(version) : undefined;
  if (v === undefined) return { set: sets[0]!, versionKnown: false };
  const hit = sets.find((s) => inRange(v, s.versions));
  if (hit) return { set: hit, versionKnown: true };
  // Newer than every range → the newest set; older → the oldest.
  const newest = sets[sets.length - 1]!;
  return {
    set: newest.versions?.min !== undefined && compareVersions(v, newest.versions.min) >= 0 ? newest : sets[0]!,
    versionKnown: true,
  };
}

/** What else the agent said in `initialize` that marks it (QuirkSet.fingerprint). */
export interface AgentMarks {
  title?: string;
  authMethodIds?: readonly string[];
}

function said(name: string, version?: string): string {
  return `"${name}"${version ? ` ${version}` : ''}`;
}

/** What the agent says about itself decides (a name without a set: the generic behaviour). */
export function choiceForAgent(
  info: { name: string; version?: string } & AgentMarks,
  via = 'the agent named itself',
): QuirkChoice {
  const agent = { name: info.name, ...(info.version !== undefined ? { version: info.version } : {}) };
  const hit = setForAgent(info.name, info.version, info);
  if (!hit)
    return {
      set: GENERIC_QUIRKS,
      basis: 'agent',
      why: `${via} ${said(info.name, info.version)}: no known quirks`,
      agent,
    };
  const range =
    hit.versionKnown || !hit.set.versions
      ? describeRange(hit.set.versions)
      : 'version unknown: every workaround of this agent';
  return { set: hit.set, basis: 'agent', why: `${via} ${said(info.name, info.version)} (${range})`, agent };
}

/** The set a command line names, from the basename of its words or a package path in them. */
export function choiceForCommand(command: string, args: readonly string[]): QuirkChoice | undefined {
  for (const word of [command, ...args]) {
    const base = word.split(/[\\/]/).pop() ?? word;
    const set = QUIRK_SETS.find((s) => s.commandHints?.some((h) => h.test(base) || h.test(word)));
    if (set)
      return { set, basis: 'command', why: `the command line names ${set.label} ("${base}"); confirmed at initialize` };
  }
  return undefined;
}

export interface LaunchFacts {
  /** The agentInfo.name a built-in provider expects. */
  agentName?: string;
  providerId?: string;
  /** The version known before starting it (`--version`, its package.json). */
  version?: string;
  command?: string;
  args?: readonly string[];
  /** What an earlier process of the same launch said about itself. */
  learned?: QuirkChoice;
}

/** Before `initialize`: what the launch says (only the client capabilities depend on it). */
export function choiceBeforeInit(f: LaunchFacts): QuirkChoice {
  if (f.learned?.agent)
    return { ...choiceForAgent(f.learned.agent, 'an earlier process of this agent named itself'), basis: 'learned' };
  if (f.agentName) {
    const c = choiceForAgent(
      { name: f.agentName, ...(f.version ? { version: f.version } : {}) },
      `agent "${f.providerId ?? f.agentName}" is expected to be`,
    );
    return { ...c, basis: 'provider', why: `${c.why}; confirmed at initialize` };
  }
  if (f.command !== undefined) {
    const byCommand = choiceForCommand(f.command, f.args ?? []);
    if (byCommand) return byCommand;
  }
  return {
    set: GENERIC_QUIRKS,
    basis: 'none',
    why: 'nothing known before initialize: decided by what the agent says there',
  };
}

/** After `initialize`: the agent's own name decides; without one, the launch's guess stays. */
export function choiceAfterInit(
  before: QuirkChoice,
  agentInfo: { name?: unknown; version?: unknown; title?: unknown } | undefined,
  authMethods: readonly { id?: unknown }[] = [],
): QuirkChoice {
  if (agentInfo && typeof agentInfo.name === 'string' && agentInfo.name !== '') {
    return choiceForAgent({
      name: agentInfo.name,
      ...(typeof agentInfo.version === 'string' ? { version: agentInfo.version } : {}),
      ...(typeof agentInfo.title === 'string' ? { title: agentInfo.title } : {}),
      authMethodIds: authMethods.map((m) => m.id).filter((id): id is string => typeof id === 'string'),
    });
  }
  if (before.basis === 'none') return { ...before, why: 'the agent did not name itself in initialize' };
  return {
    ...before,
    why: `${before.why.replace(/; confirmed at initialize$/, '')} (the agent did not name itself in initialize)`,
  };
}
