/** The usage/context meter and the status line under the conversation. */
import type { TurnUsage } from '../../session/usage.js';
import type { Style } from './style.js';

/** 950 → "950", 1234 → "1.2k", 131072 → "131k", 2500000 → "2.5M". */
export function formatTokens(n: number): string {
  if (n < 1000) return String(Math.round(n));
  if (n < 10_000) return `${(n / 1000).toFixed(1).replace(/\.0$/, '')}k`;
  if (n < 1_000_000) return `${Math.round(n / 1000)}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, '')}M`;
}

/** "ctx ▰▰▱▱▱▱▱▱ 8% 10k/128k" (or "ctx 10k" when the window size is unknown). */
export function contextMeter(ctx: { used?: number; size?: number }, style: Style, cells = 8): string {
  const used = typeof ctx.used === 'number' ? ctx.used : undefined;
  const size = typeof ctx.size === 'number' && ctx.size > 0 ? ctx.size : undefined;
  if (used === undefined) return '';
  if (size === undefined) return `ctx ${formatTokens(used)}`;
  const ratio = Math.min(1, Math.max(0, used / size));
  const filled = Math.round(ratio * cells);
  const bar = '▰'.repeat(filled) + '▱'.repeat(cells - filled);
  const color = ratio >= 0.9 ? style.red : ratio >= 0.7 ? style.yellow : style.green;
  return `ctx ${color(bar)} ${Math.round(ratio * 100)}% ${formatTokens(used)}/${formatTokens(size)}`;
}

export function usageText(u: TurnUsage | undefined): string {
  if (!u) return '';
  const parts: string[] = [];
  if (u.inputTokens !== undefined) parts.push(`in ${formatTokens(u.inputTokens)}`);
  if (u.outputTokens !== undefined) parts.push(`out ${formatTokens(u.outputTokens)}`);
  if (parts.length === 0 && u.totalTokens !== undefined) parts.push(`${formatTokens(u.totalTokens)} tokens`);
  else if (parts.length > 0) parts.push('tokens');
  return parts.join(' ');
}

export interface StatusInfo {
  state: string;
  spin: string;
  model?: string;
  mode?: string;
  context: { used?: number; size?: number };
  queued: number;
  lastUsage?: TurnUsage;
  /** The session's cost so far ("~$0.0041", "no price"), when known. */
  cost?: string;
}

export function statusLine(s: StatusInfo, style: Style): string {
  const parts: string[] = [];
  if (s.state === 'running') parts.push(style.yellow(`${s.spin} working`));
  else if (s.state === 'cancelling') parts.push(style.yellow(`${s.spin} cancelling`));
  else if (s.state === 'failed') parts.push(style.red('✗ agent failed'));
  else if (s.state === 'closed') parts.push(style.gray('closed'));
  else parts.push(style.green('● ready'));
  if (s.queued > 0) parts.push(style.cyan(`${s.queued} queued`));
  if (s.model) parts.push(`model ${s.model}`);
  if (s.mode) parts.push(`mode ${s.mode}`);
  const meter = contextMeter(s.context, style);
  if (meter) parts.push(meter);
  // Before the last turn's tokens: on a narrow terminal the line is cut at its end.
  if (s.cost) parts.push(`cost ${s.cost}`);
  const usage = usageText(s.lastUsage);
  if (usage) parts.push(`last turn ${usage}`);
  return style.dim('─ ') + parts.join(style.dim(' · '));
}
