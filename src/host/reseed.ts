/**
 * Reseating: the SAME Session object continues in a fresh agent session whose first prompt is
 * seeded with a compact copy of the conversation (thread/seed.ts). Used when the agent's own
 * session cannot go on — Hermes 0.18.2 after a context overflow keeps the failed message and
 * merges every later prompt into it, so every later prompt overflows again; reloading it in a
 * new process replays the same poison. The thread, the events and the caller's object stay;
 * only the agent session id changes (the `session.reseeded` host event says from which to which,
 * so the store can record the new agent session as a branch of the Talaria session).
 */
import { TalariaError } from '../protocol/errors.js';
import { injectedNotice } from '../thread/injected.js';
import { buildSeed, type Seed } from '../thread/seed.js';
import type { ContentBlock } from '../thread/types.js';
import type { SeedPlan, SessionBinding } from './binding.js';
import type { Generation } from './generation.js';
import type { SessionsPart } from './parts.js';

type PromptParams = { sessionId: string; prompt: ContentBlock[]; [k: string]: unknown };

/** A slash command goes to the agent as it is (Hermes' /reset, /help…): it is not a message to seed. */
export function isCommand(prompt: readonly ContentBlock[]): boolean {
  return (
    prompt.length > 0 &&
    prompt.every((b) => b.type === 'text') &&
    String(prompt[0]!.text ?? '')
      .trimStart()
      .startsWith('/')
  );
}

/** The seed first, in the same text block as the user's message (agents read one message). */
export function seededPrompt(seed: Seed, prompt: readonly ContentBlock[]): ContentBlock[] {
  const [first, ...rest] = prompt;
  const images = seed.blocks.slice(1);
  if (first?.type === 'text' && typeof first.text === 'string')
    return [{ ...first, text: `${seed.text}\n\n${first.text}` }, ...images, ...rest];
  return [{ type: 'text', text: seed.text }, ...images, ...prompt];
}

/**
 * Opens the fresh agent session on `gen`, moves `b` onto it and returns the prompt params to
 * send there instead of `params`. The running turn's own message is not part of the seed.
 */
export async function reseat(
  ops: SessionsPart,
  b: SessionBinding,
  gen: Generation,
  plan: SeedPlan,
  params: PromptParams,
): Promise<PromptParams> {
  const s = b.session;
  const previous = plan.inPlace ? s.id : await moveToFresh(ops, b, gen);
  const seed = seedFor(ops, b, plan);
  const left =
    seed.omitted > 0 ? `; ${seed.omitted} older exchange${seed.omitted > 1 ? 's' : ''} left out for room` : '';
  const size = `${seed.exchanges} exchange${seed.exchanges === 1 ? '' : 's'}, ~${seed.tokens} tokens${left}`;
  const data = injectedNotice({
    reason: plan.reason,
    previousSessionId: previous,
    agentSessionId: s.id,
    exchanges: seed.exchanges,
    omitted: seed.omitted,
    tokens: seed.tokens,
    budget: seed.budget,
  });
  if (plan.inPlace) {
    s.notice(
      'info',
      'history_seeded',
      `Sent ${ops.slot.label} a compact copy of the conversation so far (${size}).`,
      data,
    );
  } else {
    s.notice(
      'info',
      'context_reseeded',
      `Continued in a fresh ${ops.slot.label} session from a compact copy of this conversation (${size}).`,
      data,
    );
    ops.slot.emit('session.reseeded', {
      key: ops.slot.key,
      sessionId: s.id,
      previousSessionId: previous,
      reason: plan.reason,
      generation: gen.n,
    });
  }
  return { ...params, sessionId: s.id, prompt: seededPrompt(seed, params.prompt) };
}

/** The seed of the conversation before the running turn's own message. */
function seedFor(ops: SessionsPart, b: SessionBinding, plan: SeedPlan): Seed {
  const s = b.session;
  const turnId = s.running?.id;
  const own =
    turnId === undefined ? undefined : s.thread.entries.find((e) => e.kind === 'user_message' && e.turnId === turnId);
  return buildSeed(s.thread.entries, {
    reason: plan.reason,
    contextSize: s.thread.context.size,
    images: ops.promptCaps().image,
    ...(plan.from ? { from: plan.from } : {}),
    ...(own ? { before: own.id } : {}),
  });
}

/** Opens a fresh agent session on `gen` and moves `b` onto it; returns the previous agent session id. */
async function moveToFresh(ops: SessionsPart, b: SessionBinding, gen: Generation): Promise<string> {
  const { slot } = ops;
  const s = b.session;
  const res = await ops.callOn<{ sessionId?: unknown } | null>(gen, 'session/new', ops.setupParams(s, s.mcpServers), {
    timeoutMs: slot.cfg.setupTimeoutMs,
  });
  const next = res?.sessionId;
  if (typeof next !== 'string' || next === '')
    throw new TalariaError('agent_error', `${slot.label} answered session/new without a sessionId`);
  const previous = s.id;
  if (gen.client.sessions.get(previous) === s) gen.client.detach(s);
  if (slot.bindings.get(previous) === b) slot.bindings.delete(previous);
  s.reseat(next);
  slot.bindings.set(next, b);
  ops.attach(b, gen);
  s.adoptSetup(res);
  // The fresh session counts usage from zero and starts with the agent's default model and mode.
  s.resetUsage();
  await ops.restoreChoices(b, gen);
  return previous;
}
