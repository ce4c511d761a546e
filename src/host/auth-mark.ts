/**
 * The host's part in sign-in: an agent that answers auth_required (at `session/new` or at a
 * prompt) leaves a mark that readiness shows as an `auth` gap with the agent's methods
 * (providers/auth.ts); a session that opens again removes it. A mark that cannot be written is
 * logged, never a failure of the session. Only a host given `authHome` keeps marks.
 */
import { TalariaError } from '../protocol/errors.js';
import { clearAuthMark, markAuthRequired } from '../providers/auth.js';
import type { SlotPart } from './parts.js';

/** What sign-in marks read of the slot. */
type Slot = Pick<SlotPart, 'key' | 'provider' | 'cfg' | 'logger'>;

/** `initialize`: the agent's own list, for an error that carries none (Hermes' "run hermes setup"). */
export function noteAuthRequired(slot: Slot, err: unknown, where: string, initialize: readonly unknown[] = []): void {
  const home = slot.cfg.authHome;
  if (!home || !(err instanceof TalariaError) || err.code !== 'auth_required') return;
  const listed =
    Array.isArray(err.details?.authMethods) && err.details.authMethods.length ? err.details.authMethods : initialize;
  try {
    markAuthRequired(home, {
      providerId: slot.provider.id,
      ...(slot.provider.profiles && slot.key.profile ? { profile: slot.key.profile } : {}),
      message: err.message,
      authMethods: listed,
      where,
    });
  } catch (e) {
    slot.logger.warn('auth mark not written', { provider: slot.provider.id, error: (e as Error).message });
  }
}

export function noteSignedIn(slot: Slot): void {
  const home = slot.cfg.authHome;
  if (!home) return;
  try {
    clearAuthMark(home, slot.provider.id, slot.provider.profiles ? slot.key.profile : undefined);
  } catch (e) {
    slot.logger.warn('auth mark not removed', { provider: slot.provider.id, error: (e as Error).message });
  }
}
