/**
 * Permission requests in a replayed log: each goes through the real broker with the replay's
 * policy; what the policy asks is answered with the recorded answer (decidedBy `user`), and a
 * policy that decides otherwise than the recording is noted.
 */
import type { RawMessage } from '../protocol/types.js';
import type { PermissionBroker } from '../permission/broker.js';
import type { PermissionOutcome } from '../permission/types.js';
import type { Session } from './session.js';
import { recordOrEmpty } from '../os/record.js';

interface AgentReq {
  sessionId: string;
  key: string;
  outcome?: PermissionOutcome;
  done: Promise<unknown>;
}

export class ReplayPermissions {
  private readonly open = new Map<unknown, AgentReq>();

  constructor(
    private readonly broker: PermissionBroker,
    private readonly sessions: ReadonlyMap<string, Session>,
    private readonly note: (code: string, message: string) => void,
  ) {}

  /** The agent's request, as the client got it live. */
  request(msg: RawMessage): void {
    if (msg.method !== 'session/request_permission') return; // fs/terminal requests make no events
    const params = recordOrEmpty(msg.params);
    const sid = typeof params.sessionId === 'string' ? params.sessionId : '';
    const s = this.sessions.get(sid);
    if (!s) return; // live, an unknown session is answered `cancelled` without events
    const entry: AgentReq = { sessionId: sid, key: `${sid}:${String(msg.id)}`, done: Promise.resolve() };
    entry.done = s.requestPermission(params, msg.id as string | number).then((o) => void (entry.outcome = o));
    this.open.set(msg.id, entry);
  }

  /** The client's recorded answer to it. */
  async answer(msg: RawMessage): Promise<void> {
    const { broker, note } = this;
    const entry = this.open.get(msg.id);
    if (!entry) return;
    this.open.delete(msg.id);
    const recorded = recordOrEmpty(recordOrEmpty(msg.result).outcome);
    const optionId =
      !msg.error && recorded.outcome === 'selected' && typeof recorded.optionId === 'string'
        ? recorded.optionId
        : undefined;
    if (broker.pending(entry.sessionId).some((p) => p.requestKey === entry.key)) {
      if (optionId === undefined) broker.cancelSession(entry.sessionId);
      else {
        const r = this.sessions.get(entry.sessionId)?.answerPermission(entry.key, { optionId });
        if (r && !r.ok) note('permission_answer', `recorded answer ${optionId} could not be replayed (${r.reason})`);
      }
    } else {
      await entry.done;
      const decided = entry.outcome?.outcome === 'selected' ? entry.outcome.optionId : undefined;
      if (decided !== optionId) {
        note(
          'permission_mismatch',
          `the replay policy answered ${decided ?? 'cancelled'}, the recording ${optionId ?? 'cancelled'}`,
        );
      }
    }
    await entry.done;
  }
}
