/**
 * talaria-acp/hermes — Hermes Agent support: the provider, finding the binary, readiness,
 * profiles, the Talaria skill, config lint, the model rows of its catalog, and tokens and cost
 * from Hermes' own state.db (read-only), and its sessions from other channels (cli, telegram, …).
 */
export { hermesProvider } from './providers/hermes/provider.js';
export { findHermes } from './providers/hermes/binary.js';
export type { HermesBinary } from './providers/hermes/binary.js';
export { hermesReadiness } from './providers/hermes/readiness.js';
export { listProfiles } from './providers/hermes/profiles.js';
export type { HermesProfile } from './providers/hermes/profiles.js';
export { hermesProfileListing } from './providers/hermes/profile-listing.js';
export type { HermesProfileListing } from './providers/hermes/profile-listing.js';
export { installSkill } from './providers/hermes/skills.js';
export { lintHermesConfig } from './providers/hermes/config-lint.js';
export type { LintIssue } from './providers/hermes/config-lint.js';
export { hermesModelRows } from './providers/hermes/catalog.js';
export { readHermesUsage, hermesCost, formatCost, addCosts } from './providers/hermes/state-db.js';
export type { Cost, CostTotal, HermesSessionUsage, HermesUsageRead } from './providers/hermes/state-db.js';
export { listChannelSessions, readChannelSession } from './providers/hermes/channel-sessions.js';
export type { ChannelList, ChannelSession, ChannelShow } from './providers/hermes/channel-sessions.js';
export { channelEntries } from './providers/hermes/channel-transcript.js';
export type { ChannelMessage, ChannelToolCall } from './providers/hermes/channel-transcript.js';
