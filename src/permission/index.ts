/** Permission layer: pure policy + stateful broker. */
export type * from './types.js';
export {
  describeRequest,
  commandFromTitle,
  normalizePath,
  type KnownToolCall,
  type DescribeOptions,
} from './subject.js';
export { isSensitivePath } from './sensitive.js';
export { isDangerousCommand, dangerReason } from './dangerous.js';
export {
  evaluate,
  ruleMatches,
  isInsideRoots,
  globMatchesAll,
  commandMatches,
  escapeCommandPattern,
  escapeGlob,
  describeRule,
  EDIT_KINDS,
  type PolicyConfig,
} from './policy.js';
export { chooseOption, pickOption, isIntent, type PermissionIntent } from './options.js';
export { PermissionBroker } from './broker.js';
export {
  EFFECT_OPTIONS,
  type BrokerOptions,
  type PendingPermission,
  type PermissionRequest,
  type EffectRequest,
  type EffectVerdict,
  type AnswerResult,
  type SetTimer,
} from './broker-types.js';
export { resolveRealPaths, type ResolvePaths } from './real-paths.js';
export { alwaysRule } from './always-rule.js';
