/** What a chat input line means: a prompt, one of our slash commands, or an agent command. */

export const CHAT_COMMANDS = [
  { name: 'model', args: '[ID]', help: 'list models, or switch to ID' },
  { name: 'mode', args: '[ID]', help: 'list modes, or switch to ID' },
  { name: 'sessions', args: '', help: "this workspace's sessions (stored and at the agent)" },
  { name: 'export', args: '[FILE]', help: 'save the thread as Markdown' },
  { name: 'steer', args: 'TEXT', help: 'steer the running turn now (typing while it runs queues instead)' },
  { name: 'login', args: '[METHOD]', help: 'sign in to the agent (its methods, as `talaria login` runs them)' },
  { name: 'cancel', args: '', help: 'cancel the running turn (also Ctrl-C)' },
  { name: 'help', args: '', help: 'this list' },
  { name: 'quit', args: '', help: 'leave (also /exit, Ctrl-D, Ctrl-C twice)' },
] as const;

export type BuiltinName = (typeof CHAT_COMMANDS)[number]['name'];

export type ChatInput =
  | { kind: 'empty' }
  | { kind: 'prompt'; text: string }
  | { kind: 'builtin'; name: BuiltinName; arg?: string }
  | { kind: 'unknown'; name: string };

const ALIASES: Record<string, BuiltinName> = { exit: 'quit', q: 'quit', models: 'model', modes: 'mode', '?': 'help' };

/**
 * `/name arg` → ours when we know the name; the agent's own commands (available_commands) are
 * sent as prompts; `//text` sends `/text` verbatim (an agent command that shares a name with ours).
 */
export function parseInput(line: string, agentCommands: readonly string[]): ChatInput {
  const text = line.trim();
  if (text === '') return { kind: 'empty' };
  if (!text.startsWith('/')) return { kind: 'prompt', text };
  if (text.startsWith('//')) return { kind: 'prompt', text: text.slice(1) };
  const m = /^\/(\S+)(?:\s+([\s\S]*))?$/.exec(text);
  const name = (m?.[1] ?? '').toLowerCase();
  const arg = m?.[2]?.trim() || undefined;
  const builtin = CHAT_COMMANDS.find((c) => c.name === name)?.name ?? ALIASES[name];
  if (builtin) return arg !== undefined ? { kind: 'builtin', name: builtin, arg } : { kind: 'builtin', name: builtin };
  if (agentCommands.includes(m?.[1] ?? '')) return { kind: 'prompt', text };
  return { kind: 'unknown', name: m?.[1] ?? text };
}
