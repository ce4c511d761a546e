/**
 * The permission request the editor gets for an effect Talaria gates (an fs write, a terminal the
 * agent opens without asking): no agent request is behind it, so the editor gets Talaria's own
 * options (else it has nothing to pick) and what the effect is (kind, command or paths), so its
 * own policy can judge it.
 */
import type { PermissionOption, PermissionSubject } from '../../permission/types.js';

const EFFECT_KIND: Record<string, string> = { 'terminal.create': 'execute', 'fs.write': 'edit', 'fs.read': 'read' };

/** An effect's tool call fields as ACP names them (kind, rawInput, locations). */
function effectCall(s: PermissionSubject): Record<string, unknown> {
  const kind = s.effect ? EFFECT_KIND[s.effect] : s.toolKind;
  return {
    ...(kind ? { kind } : {}),
    ...(s.command !== undefined
      ? { rawInput: { command: s.command } }
      : s.paths.length > 0
        ? { rawInput: { path: s.paths[0] } }
        : {}),
    ...(s.paths.length > 0 ? { locations: s.paths.map((path) => ({ path })) } : {}),
  };
}

/** `session/request_permission` params (without the session id) for an effect Talaria asks about. */
export function effectAsk(
  toolCallId: string,
  title: string | undefined,
  options: readonly PermissionOption[],
  subject: PermissionSubject,
): Record<string, unknown> {
  return {
    toolCall: { toolCallId, ...(title !== undefined ? { title } : {}), ...effectCall(subject) },
    options: options.map((o) => ({ ...o, name: o.name ?? o.kind })),
  };
}
