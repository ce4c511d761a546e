/**
 * A quirk set says how one agent (by the name it gives itself in `initialize`, within a version
 * range) misbehaves and how Talaria absorbs it. It is chosen from what the agent says, never from
 * how it was launched, so a built-in id, an `--agent-cmd` command, a config.json agent and an
 * editor import of the same agent get the same fixes (DESIGN.md "Quirks follow the agent").
 */
import type { PermissionMode } from '../../permission/types.js';
import type { SessionHooks } from '../../session/hooks.js';
import type { ClientCaps, HookOptions, ProviderQuirks } from '../types.js';

/** Versions a set applies to: `min` ≤ version < `below` (either bound may be absent). */
export interface VersionRange {
  min?: string;
  below?: string;
}

export interface QuirkSet {
  /** Stable id, shown to users (`talaria agents`, doctor, probe). */
  readonly id: string;
  readonly label: string;
  /**
   * The `agentInfo.name` values this set is for, tested against the whole name and against its
   * base under any npm scope (`@fork/claude-code-acp` → `claude-code-acp`): forks keep the fixes.
   */
  readonly names: RegExp;
  /** The agent's own marks in `initialize` when its name says nothing (a renamed fork). */
  fingerprint?(said: { title?: string; authMethodIds: readonly string[] }): boolean;
  readonly versions?: VersionRange;
  /**
   * Words of a command line that name this agent before it has said anything (basename of the
   * executable, or a package path in a script argument). Only used to choose the client
   * capabilities of `initialize`; what the agent then says decides.
   */
  readonly commandHints?: readonly RegExp[];
  /** The name a command hint stands for (what the agent will say). */
  readonly hintName?: string;
  /** Client capabilities this agent needs in `initialize` (can only switch things off, or add `_meta`). */
  readonly clientCaps?: ClientCaps & { _meta?: Record<string, unknown> };
  hooks?(o: HookOptions): SessionHooks;
  readonly host?: ProviderQuirks;
  /** How it reports usage in prompt responses (default per-turn). */
  readonly usage?: 'per-turn' | 'cumulative' | 'none';
  /** False when a new process of it cannot load its sessions. */
  readonly sessionsSurviveRestart?: boolean;
  /** The agent's own mode id for a Talaria permission mode, applied with session/set_mode. */
  modeFor?(mode: PermissionMode): string | undefined;
}

/**
 * How a set was chosen: from `initialize` (`agent`), from a command line that names the agent
 * (`command`), from a built-in provider's id (`provider`), from an earlier process of the same
 * command (`learned`), or nothing known (`none`: the generic set).
 */
export type QuirkBasis = 'agent' | 'command' | 'provider' | 'learned' | 'none';

export interface QuirkChoice {
  set: QuirkSet;
  basis: QuirkBasis;
  /** One human sentence: "agentInfo.name \"hermes-agent\" 0.18.2 (versions below 0.21.0)". */
  why: string;
  /** What the agent said about itself (when it did). */
  agent?: { name: string; version?: string };
}

/** A choice in JSON (agents --json, doctor --json, probe --json, host events). */
export interface QuirkSummary {
  set: string;
  label: string;
  basis: QuirkBasis;
  why: string;
}

export function summarize(c: QuirkChoice): QuirkSummary {
  return { set: c.set.id, label: c.set.label, basis: c.basis, why: c.why };
}
