/** The harness: the library face (registry + host + store; workspaces → recorded sessions). */
export { createHarness, type HarnessExtras } from './harness.js';
export { PREFERRED_AGENTS, FALLBACK_AGENT } from './choose.js';
export { FrameRouter, ConnectionRouter, keyId, type ConnectionInfo, type FrameSink } from './frame-router.js';
export { seedThread } from './restore.js';
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
  ExportFormat,
  AgentStatus,
  AgentPick,
} from './types.js';
