/** The ACP Agent Registry: index client (ETag cache), entry validation, pinned installs, installed agents as providers. */
export {
  parseIndex,
  platformKey,
  agentEntrySchema,
  PLATFORMS,
  type AgentEntry,
  type Distribution,
  type RegistryIndex,
  type RegistryPlatform,
} from './schema.js';
export {
  fetchIndex,
  formatAge,
  registryCacheDir,
  DEFAULT_REGISTRY_URL,
  type FetchIndexOptions,
  type IndexResult,
} from './index-client.js';
export { installAgent, chooseDistribution, splitPackageSpec, type InstallOptions } from './install.js';
export {
  listInstalled,
  currentInstalls,
  removeInstalled,
  installDir,
  agentsDir,
  type InstalledAgent,
} from './installed.js';
export { installedProvider, UV_INSTALL_FIX } from './provider.js';
export { RegistryError, type RegistryErrorCode } from './errors.js';
export { archiveKind } from './archive-kind.js';
export { pickEntry, addAgent, latestFor, updateInstalled, type UpdateResult } from './ops.js';
export { installFromNpm, withNpmInstall } from './npm-builtin.js';
