/**
 * talaria-acp/host — supervised agent processes per (provider, profile, workspace): lazy spawn,
 * idle reap, crash respawn and reload; its events.
 */
export { AgentHost } from './host/host.js';
export type { HostOptions, OpenOptions, AgentTarget } from './host/host.js';
export { HOST_EVENTS, HOST_EVENT_NAMES, checkHostEvent } from './host/events.js';
export type { HostEvent, HostEventName, HostEventOf, AgentKey } from './host/events.js';
