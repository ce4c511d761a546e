/** The harness: the library face (registry + host + store; workspaces → recorded sessions). */
export { createHarness, type HarnessExtras } from './harness.js';
export { PREFERRED_AGENTS, FALLBACK_AGENT } from './choose.js';
export {
  setWorkspaceProfile,
  profileOfRow,
  OWN_PROFILE_PROVIDER,
  type WorkspaceProfile,
  type ProfileChange,
} from './workspace-profile.js';
export {
  createRecorder,
  storedLineOf,
  type Recorder,
  type RecorderOptions,
  type FlushInfo,
  type RecordingDelayEvent,
} from './recorder.js';
export { SessionLocks, holderAlive, type LeaseFleet } from './session-locks.js';
export { toPermissionRule, permissionRules } from './rules.js';
export { seedThread } from './restore.js';
export { branchTree, type BranchNode } from './branches.js';
export { liveRegistry, LiveRegistry } from './live-registry.js';
export { storedFailure, turnFailure, type Failure as SessionFailure } from './failure.js';
export { branchOrigin, createdByOf, type BranchOrigin } from './provenance.js';
export type {
  Harness,
  HarnessOptions,
  HarnessSession,
  Workspace,
  SessionOrigin,
  SessionSummary,
  ListOptions,
  ListResult,
  NewSessionOptions,
  OpenStoredOptions,
  BranchOptions,
  ExportFormat,
  AgentStatus,
  AgentPick,
  ConnectionInfo,
  RecordingError,
  RecordingDelay,
} from './types.js';
export { TALARIA_ERROR_CODES, type TalariaErrorCode } from './errors.js';
export {
  sessionUsage,
  groupUsage,
  tokensFromTurns,
  costFromContext,
  type SessionUsage,
  type UsageGroup,
  type UsageReport,
  type UsageTokens,
  type UsageBy,
} from './usage.js';
