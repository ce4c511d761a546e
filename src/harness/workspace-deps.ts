/**
 * What a workspace is built from (the harness's parts), and the few of its own helpers that
 * forking and branching share with opening (workspace.ts, workspace-branch.ts).
 */
import type { OpenOptions } from '../host/host.js';
import type { ProviderRegistry } from '../providers/registry.js';
import type { Session } from '../session/session.js';
import type { StoredSession } from '../store/index.js';
import type { RecordInit, RecordingDeps } from './hosted.js';
import type { WarmPool } from './warm-pool.js';
import type { ProfileResolver } from './workspace-profile.js';
import type { AgentPick, ConnectionInfo, HarnessSession } from './types.js';

export interface WorkspaceDeps extends RecordingDeps {
  registry: ProviderRegistry;
  pick(o: { workspace: string; provider?: string; profile?: string }): Promise<AgentPick>;
  /** A provider for a stored row (ad-hoc command agents are rebuilt from the row). */
  providerFor(row: StoredSession): { provider: string; profile?: string };
  /** What to keep about the agent in the row (initialize's agentInfo, an ad-hoc command). */
  agentInfoFor(provider: string, info: ConnectionInfo | undefined): unknown;
  permissionMode?: OpenOptions['permissionMode'];
  /** Spare sessions and catalogs kept ready (warm-pool.ts). */
  warm: WarmPool;
  /** The profile the workspace row sets (its own Hermes profile, created on demand). */
  profiles: ProfileResolver;
}

/** A workspace's own helpers, shared by its fork and branch (workspace-branch.ts). */
export interface WorkspaceCore {
  d: WorkspaceDeps;
  /** The workspace's folder. */
  ws: string;
  /** Open options for an agent session of this workspace. */
  target(
    provider: string,
    profile: string | undefined,
    o: {
      cwd?: string;
      permissionMode?: OpenOptions['permissionMode'];
      mcpServers?: unknown[];
      additionalDirectories?: string[];
    },
  ): OpenOptions;
  /** A new store row for a live session. */
  store(s: Session, provider: string, profile: string | undefined): StoredSession;
  /** Records a session whose row was just created. */
  recordNew(s: Session, init: RecordInit): Promise<HarnessSession>;
}
