/** Providers: agent descriptors, registry, config, imports, readiness and Hermes support. */
export type {
  Provider,
  ProviderEnv,
  ProviderQuirks,
  ProviderSource,
  CommandSpec,
  Located,
  LaunchOptions,
  Readiness,
  ReadinessGap,
  ReadinessOptions,
  GapCode,
  ClientCaps,
  HookOptions,
} from './types.js';
export { defineProvider, type ProviderSpec } from './define.js';
export {
  claudeCode,
  codex,
  gemini,
  opencode,
  kimi,
  demoProvider,
  geminiArgs,
  GEMINI_ACP_FLAG_SINCE,
} from './builtin.js';
export { qwen, copilot, kilo, pi, cursor } from './builtin-extra.js';
export * from './quirks/index.js';
export { customProvider, slugify, type AgentDefinition } from './custom.js';
export {
  ProviderRegistry,
  createRegistry,
  loadRegistry,
  refreshInstalled,
  builtinProviders,
  agentHomeVariables,
  type RegistryOptions,
} from './registry.js';
export {
  parseConfig,
  loadConfig,
  saveConfig,
  emptyConfig,
  configPath,
  resolveProvider,
  workspaceBinding,
  bindWorkspace,
  FALLBACK_PROVIDER,
  type TalariaConfig,
  type WorkspaceBinding,
  type ProviderChoice,
} from './config.js';
export {
  parseZedSettings,
  parseJetBrainsAcp,
  importZedAgents,
  importJetBrainsAgents,
  zedSettingsPath,
  jetbrainsAcpPath,
  type ImportResult,
} from './imports.js';
export { parseJsonc } from './jsonc.js';
export { which, isExecutable, expandHome, currentEnv } from './locate.js';
export { parseVersion, compareVersions } from './command-output.js';
export { runProgram, type RunResult, type RunOptions } from '../os/run-program.js';
export { cliReadiness, credentialGap, packageVersion, DEFAULT_CHECK_TIMEOUT_MS } from './readiness.js';
export { probeProvider, authFix, type ProbeOptions, type ProbeResult } from './probe.js';
export { filterMcpServers, mcpServerType, type McpFilterResult } from './mcp.js';
export { agentEnv, spawnOptions, clientCapOptions, type ClientCapsWithMeta, type ClientCapFields } from './launch.js';
export * from './hermes/index.js';
export * from './registry-acp/index.js';
