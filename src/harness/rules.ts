/**
 * Permission rules between the store (which keeps them as JSON) and the policy (which needs
 * PermissionRule): a stored rule that is not one any more (edited by hand, written by a newer
 * Talaria) is skipped and logged rather than trusted.
 */
import type { PermissionRule } from '../permission/types.js';
import type { Logger } from '../protocol/types.js';
import type { RuleJson } from '../store/index.js';

const DECISIONS = new Set(['allow', 'deny', 'ask']);
const SOURCES = new Set(['default', 'user', 'always-answer', 'config']);
const optString = (v: unknown) => v === undefined || typeof v === 'string';

/** The rule `json` describes, or undefined when it is not a valid rule. */
export function toPermissionRule(json: RuleJson): PermissionRule | undefined {
  const { id, decision, toolKind, pathGlob, command, source } = json;
  if (typeof decision !== 'string' || !DECISIONS.has(decision)) return undefined;
  const kindOk =
    toolKind === undefined ||
    typeof toolKind === 'string' ||
    (Array.isArray(toolKind) && toolKind.every((k) => typeof k === 'string'));
  if (
    !kindOk ||
    !optString(id) ||
    !optString(pathGlob) ||
    !optString(command) ||
    (source !== undefined && !SOURCES.has(source))
  )
    return undefined;
  const rule: PermissionRule = { decision: decision as PermissionRule['decision'] };
  if (id !== undefined) rule.id = id;
  if (toolKind !== undefined) rule.toolKind = toolKind as PermissionRule['toolKind'];
  if (pathGlob !== undefined) rule.pathGlob = pathGlob as string;
  if (command !== undefined) rule.command = command as string;
  if (source !== undefined) rule.source = source as PermissionRule['source'];
  return rule;
}

/** The valid rules of `stored`, in order. */
export function permissionRules(stored: readonly RuleJson[], logger?: Logger): PermissionRule[] {
  const out: PermissionRule[] = [];
  for (const json of stored) {
    const rule = toPermissionRule(json);
    if (rule) out.push(rule);
    else logger?.warn('store: a stored permission rule is not valid and was skipped', { rule: json });
  }
  return out;
}

/** A rule as the store keeps it. */
export function ruleJson(rule: PermissionRule): RuleJson {
  return { ...rule };
}
