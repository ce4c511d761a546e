/**
 * talaria-acp/providers — how agents are found and started: descriptors (built-in, custom, the
 * demo agent), the registry with config.json and editor imports, provider resolution, the probe.
 */
export { createRegistry, loadRegistry, ProviderRegistry } from './providers/registry.js';
export { resolveProvider } from './providers/config.js';
export { defineProvider } from './providers/define.js';
export type { ProviderSpec } from './providers/define.js';
export { demoProvider } from './providers/builtin.js';
export { customProvider } from './providers/custom.js';
export type { AgentDefinition } from './providers/custom.js';
export { probeProvider } from './providers/probe.js';
export type { Provider, ProviderEnv, Readiness, ReadinessGap } from './providers/types.js';
