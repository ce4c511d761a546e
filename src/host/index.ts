/** Host: supervised agent processes per (provider, profile, workspace). */
export { AgentHost, type HostOptions, type OpenOptions, type AgentTarget } from './host.js';
export { HOST_EVENTS, HOST_EVENT_NAMES, EXIT_REASONS, checkHostEvent } from './events.js';
export type { HostEvent, HostEventName, HostEventOf, AgentKey, ExitReason } from './events.js';
export type { SlotStatus } from './slot.js';
export { DEFAULT_BACKOFF, CrashTracker, type BackoffPolicy } from './backoff.js';
export { Gate } from './gate.js';
export { killGroup, groupAlive } from './tree.js';
