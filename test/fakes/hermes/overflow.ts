/**
 * A context overflow (the provider's 400 context_length_exceeded naming its limit), as
 * Hermes 0.18.2 handles it: learn the lower limit (usage_update.size shrinks), compress and
 * retry, at most 3 compressions. Texts: "max compression attempts (3) reached." when every
 * pass made progress, else "Context length exceeded (<n> tokens). Cannot compress further.".
 * The retries overflow again because compression protects the latest user message.
 * HERMES_EMU_OVERFLOW=real also persists the learned limit (context_length_cache.yaml); a
 * later process then uses it for the auxiliary compression model and, under 64K, fails.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compressOnce } from './compaction.js';
import { messagesTokens, replaceAll } from './history.js';
import { pause, type Ctx } from './runtime.js';
import type { Turn } from './turn.js';

export const OVERFLOW_LIMIT = 8192;
const MAX_ATTEMPTS = 3;
const AUX_MINIMUM = 64_000;
const CACHE = 'context_length_cache.yaml';

const fmt = (n: number) => n.toLocaleString('en-US');
const cacheKey = (ctx: Ctx) => `${ctx.cfg.model}@${ctx.cfg.baseUrl}`;

/** The limit a previous process learned for this model, if any (read once at start). */
export function readContextCache(home: string, ctx: Pick<Ctx, 'cfg'>): number | null {
  const file = join(home, CACHE);
  if (!existsSync(file)) return null;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const i = line.lastIndexOf(':');
    if (i > 0 && line.slice(0, i).trim() === `${ctx.cfg.model}@${ctx.cfg.baseUrl}`) {
      const n = Number(line.slice(i + 1).trim());
      if (Number.isFinite(n)) return n;
    }
  }
  return null;
}

function writeContextCache(ctx: Ctx, limit: number): void {
  const home = ctx.store.home;
  const file = join(home, CACHE);
  const lines = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((l) => l.trim() && !l.startsWith(`${cacheKey(ctx)}:`))
    : [];
  mkdirSync(home, { recursive: true });
  writeFileSync(file, [...lines, `${cacheKey(ctx)}: ${limit}`].join('\n') + '\n');
}

export async function overflow(t: Turn, limit = OVERFLOW_LIMIT): Promise<void> {
  const { ctx, rt } = t;
  for (let attempts = 1; ; attempts++) {
    // The call failed; a lower limit reported by the provider is learned (and counts as progress).
    const learned = limit < rt.contextSize;
    if (learned) {
      rt.contextSize = limit;
      if (ctx.settings.overflowReal) writeContextCache(ctx, limit);
    }
    if (attempts > MAX_ATTEMPTS)
      return t.fail(`Context length exceeded: max compression attempts (${MAX_ATTEMPTS}) reached.`);
    if (ctx.settings.overflowReal && ctx.auxContext !== null && ctx.auxContext < AUX_MINIMUM) {
      return t.exception(
        `Error: Auxiliary compression model ${ctx.cfg.model} has a context window of ${fmt(ctx.auxContext)} tokens, which is below the minimum ${fmt(AUX_MINIMUM)} required by Hermes Agent.  Choose a compression model with at least 64K context (set auxiliary.compression.model in config.yaml), or set auxiliary.compression.context_length to override the detected value if it is wrong.`,
      );
    }
    const compressed = compressOnce(rt.history);
    if (compressed) replaceAll(rt, compressed);
    if (!compressed && !learned)
      return t.fail(`Context length exceeded (${fmt(messagesTokens(rt.history))} tokens). Cannot compress further.`);
    await pause(rt, ctx.settings.compressPauseMs);
    if (rt.cancelled) return;
  }
}
