/**
 * The agent's own way to steer a running turn (session/steer.ts decides when to ask):
 * - `_session/steering` when the agent advertises `_meta.steering.supported` in initialize
 *   (claude-agent-acp ≥ 0.24, @agentclientprotocol/claude-agent-acp: `{sessionId, prompt, _meta}` →
 *   `{outcome: injected | promptRequired | startedNewTurn}`, read from its 0.101.0 source);
 * - Hermes' `/steer` command (quirk `steer: 'slash-during-tool'`), sent past the turn queue and
 *   the config serialisation while the turn runs, and only while one of its tools runs: 0.18.2
 *   appends it to that tool's result for the model; during plain text it answers "queued" and
 *   drops it. Its "⏩ Steer queued…" reply is not model text (the Hermes hooks drop it).
 * null: the agent has no way for this moment (the session cancels and resends).
 */
import type { SteerOutcome } from '../session/core.js';
import type { ConnectionInfo } from '../session/client.js';
import type { SessionBinding } from './binding.js';
import type { SessionsPart } from './parts.js';

type Obj = Record<string, unknown> | undefined;

export function advertisesSteering(info: ConnectionInfo | undefined): boolean {
  const at = (m: unknown) => ((m as Obj)?.steering as Obj)?.supported === true;
  return at(info?.meta) || at(info?.agentCapabilities?._meta);
}

const OUTCOMES = new Set(['injected', 'startedNewTurn', 'promptRequired']);

export async function agentSteer(
  ops: SessionsPart,
  b: SessionBinding,
  text: string,
  o: { toolRunning: boolean },
): Promise<SteerOutcome | null> {
  const gen = b.gen;
  if (!gen || !gen.alive || !gen.client.sessions.has(b.id)) return null;
  const prompt = [{ type: 'text', text }];
  if (advertisesSteering(gen.client.info)) {
    // promptRequired: if the turn ended meanwhile, the adapter hands the message back instead of
    // starting a detached turn of its own (which no Talaria turn would own); the session prompts it.
    const params = { sessionId: b.id, prompt, _meta: { steering: { idleBehavior: 'promptRequired' } } };
    const res = await ops.callOn<{ outcome?: unknown } | null>(gen, '_session/steering', params, {}, b.id);
    const outcome =
      typeof res?.outcome === 'string' && OUTCOMES.has(res.outcome)
        ? (res.outcome as SteerOutcome['outcome'])
        : 'injected';
    return { outcome, via: '_session/steering' };
  }
  if (ops.slot.quirks.host.steer === 'slash-during-tool' && o.toolRunning) {
    await ops.callOn(
      gen,
      'session/prompt',
      { sessionId: b.id, prompt: [{ type: 'text', text: `/steer ${text}` }] },
      {},
      b.id,
    );
    return { outcome: 'injected', via: '/steer' };
  }
  return null;
}
