import { escapeCommandPattern, escapeGlob } from './policy.js';
import type { PermissionRule, PermissionSubject } from './types.js';

/**
 * The narrowest rule for an "always" answer: the same tool kind plus the exact command (and
 * exact paths, when there are some) — or, without a command, the exact path(s), as named and
 * as resolved. Nothing
 * narrow enough (no command, no paths, or paths but no kind) → no rule.
 */
export function alwaysRule(subject: PermissionSubject, decision: 'allow' | 'deny'): PermissionRule | undefined {
  const rule: PermissionRule = { decision, source: 'always-answer' };
  if (subject.toolKind) rule.toolKind = subject.toolKind;
  // Named and resolved forms both: a later allow rule must match both (policy.ts).
  const paths = [...new Set([...subject.paths, ...(subject.realPaths ?? [])])];
  const glob =
    paths.length === 0
      ? undefined
      : paths.length === 1
        ? escapeGlob(paths[0]!)
        : `{${paths.map(escapeGlob).join(',')}}`;
  if (subject.command) {
    rule.command = escapeCommandPattern(subject.command);
    if (glob) rule.pathGlob = glob;
    return rule;
  }
  if (glob && subject.toolKind) {
    rule.pathGlob = glob;
    return rule;
  }
  return undefined;
}
