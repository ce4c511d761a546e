/** Every launch profile, in matrix order. */
import { claudeAgentAcp, claudeAgentAcpNext } from './claude-agent-acp.js';
import { claudeCodeAcp, claudeCodeAcpFork } from './claude-code-acp.js';
import { codexAcp } from './codex-acp.js';
import { copilot } from './copilot.js';
import { cursor } from './cursor.js';
import { geminiCli } from './gemini-cli.js';
import { kilo } from './kilo.js';
import { opencode } from './opencode.js';
import { pi } from './pi.js';
import { qwenCode } from './qwen-code.js';
import type { AgentProfile } from './types.js';

export const PROFILES: AgentProfile[] = [
  claudeAgentAcp,
  claudeCodeAcp,
  codexAcp,
  geminiCli,
  opencode,
  kilo,
  qwenCode,
  copilot,
  pi,
  cursor,
];
/** Run only when named: newer lines of an agent, for the cells only they can fill. */
export const EXTRA_PROFILES: AgentProfile[] = [claudeAgentAcpNext, claudeCodeAcpFork];

/** Profiles by name (exact, or a unique prefix); all of them for an empty list. */
export function findProfiles(names: string[]): AgentProfile[] {
  if (names.length === 0) return PROFILES;
  return names.map((n) => {
    const exact = [...PROFILES, ...EXTRA_PROFILES].find((x) => x.name === n);
    const hits = PROFILES.filter((x) => x.name.startsWith(n));
    const p = exact ?? (hits.length === 1 ? hits[0] : undefined);
    if (!p) throw new Error(`unknown or ambiguous agent ${n}; known: ${PROFILES.map((x) => x.name).join(', ')}`);
    return p;
  });
}
