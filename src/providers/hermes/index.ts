/** Hermes Agent: binary discovery, readiness, profiles, skills, config lint and quirk hooks. */
export { hermesProvider, HERMES_MODES } from './provider.js';
export { findHermes, hermesLocations, type HermesBinary, type HermesSearch } from './binary.js';
export { hermesReadiness, profileArgs, HERMES_INSTALL } from './readiness.js';
export { hermesRoot, profileHome, activeProfile, isProfileName, PROFILE_RE } from './home.js';
export {
  listProfiles,
  parseProfileList,
  scanProfiles,
  PROFILE_ROW_RE,
  type HermesProfile,
  type ProfileRow,
  type ProfileListing,
} from './profiles.js';
export {
  createProfile,
  ensureProfile,
  workspaceProfileName,
  profileNameProblem,
  RESERVED_PROFILE_NAMES,
  type CreateProfileOptions,
  type CreatedProfile,
} from './profile-create.js';
export { installSkill, SKILL_NAME_RE, type SkillInstall, type SkillInstalled } from './skills.js';
export {
  lintHermesConfig,
  lintHermesProfile,
  readHermesEnv,
  summarizeConfig,
  readHermesConfig,
  type HermesKeys,
  type LintIssue,
  type HermesConfigSummary,
  type YamlScalar,
} from './config-lint.js';
export {
  hermesHooks,
  classifyHermesTurn,
  linkHermesPermission,
  hermesStrayResumeId,
  hermesSetupError,
  type HermesHookOptions,
} from './hooks.js';
export { hermesModelRows, parseRow as parseHermesModelRow, splitModelId } from './catalog.js';
export { HERMES_QUIRK_SETS, HERMES_KEEPS_MCP_SINCE } from './quirks.js';
