/**
 * Picks which OFFERED option answers an intent. Always by `kind`, never by id: ids differ per
 * agent (`allow`/`reject`, `approved`/`abort`, `proceed_once`/`cancel`, Hermes `allow_session`
 * with kind allow_always …), and agents deny an id they did not offer.
 *
 * Fallbacks stay on the same side: allow_once ↔ allow_always, reject_once ↔ reject_always
 * (an "always" intent answered "once" is narrower than asked — the broker remembers the rule
 * itself). An allow intent never lands on a reject option or vice versa. Several options of one
 * kind (qwen offers two allow_once; Hermes two allow_always): the first offered wins.
 * Nothing fits → undefined; the caller answers `cancelled`, which every agent treats as deny.
 */

import type { PermissionAnswer, PermissionOption } from './types.js';

export type PermissionIntent = 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';

const PREFERENCE: Record<PermissionIntent, PermissionIntent[]> = {
  allow_once: ['allow_once', 'allow_always'],
  allow_always: ['allow_always', 'allow_once'],
  reject_once: ['reject_once', 'reject_always'],
  reject_always: ['reject_always', 'reject_once'],
};

/** The offered optionId answering `intent`, or undefined. */
export function chooseOption(options: readonly PermissionOption[], intent: PermissionIntent): string | undefined {
  return pickOption(options, intent)?.optionId;
}

/** Like chooseOption, returning the whole option (its kind goes to the audit log). */
export function pickOption(
  options: readonly PermissionOption[],
  intent: PermissionIntent,
): PermissionOption | undefined {
  const kinds = PREFERENCE[intent];
  if (!kinds || !Array.isArray(options)) return undefined;
  for (const kind of kinds) {
    const hit = options.find((o) => isOption(o) && o.kind === kind);
    if (hit) return hit;
  }
  return undefined;
}

export function isIntent(v: unknown): v is PermissionIntent {
  return typeof v === 'string' && Object.hasOwn(PREFERENCE, v);
}

export function isOption(o: unknown): o is PermissionOption {
  return (
    typeof o === 'object' &&
    o !== null &&
    typeof (o as PermissionOption).optionId === 'string' &&
    typeof (o as PermissionOption).kind === 'string'
  );
}

export function isAllowKind(kind: string | undefined): boolean {
  return kind === 'allow_once' || kind === 'allow_always';
}

export function isRejectKind(kind: string | undefined): boolean {
  return kind === 'reject_once' || kind === 'reject_always';
}

/**
 * Which offered option a person's answer selects, and the intent behind it (for "always").
 * undefined: not offered — an unknown id, or an allow with nothing to allow. A reject with no
 * reject option gives no option: it is answered `cancelled`, which agents read as deny.
 */
export function resolveAnswer(
  options: readonly PermissionOption[],
  answer: PermissionAnswer | undefined,
): { opt: PermissionOption | undefined; intent: PermissionIntent | undefined } | undefined {
  if (answer && typeof (answer as { optionId?: unknown }).optionId === 'string') {
    const id = (answer as { optionId: string }).optionId;
    const opt = options.find((o) => o.optionId === id);
    if (!opt) return undefined;
    return { opt, intent: opt.kind === 'allow_always' || opt.kind === 'reject_always' ? opt.kind : undefined };
  }
  const choice = (answer as { choice?: unknown } | undefined)?.choice;
  if (!isIntent(choice)) return undefined;
  const opt = pickOption(options, choice);
  if (!opt && isAllowKind(choice)) return undefined;
  return { opt, intent: choice };
}
