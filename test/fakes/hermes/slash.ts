/**
 * Headless slash commands (Hermes' _handle_slash_command): answered as one chunk with no
 * model call and no usage. Unknown /commands return null and go to the model.
 */
import { compact } from './compaction.js';
import { contextUsed, persist, type Ctx, type Runtime } from './runtime.js';

export const COMMANDS: Array<{ name: string; description: string; hint?: string }> = [
  { name: 'help', description: 'List available commands' },
  { name: 'model', description: 'Show current model and provider, or switch models', hint: 'model name to switch to' },
  { name: 'tools', description: 'List available tools with descriptions' },
  { name: 'context', description: 'Show conversation message counts by role' },
  { name: 'reset', description: 'Clear conversation history' },
  { name: 'compact', description: 'Compress conversation context' },
  { name: 'steer', description: 'Inject guidance into the currently running agent turn', hint: 'guidance for the active turn' },
  { name: 'queue', description: 'Queue a prompt to run after the current turn finishes', hint: 'prompt to run next' },
  { name: 'version', description: 'Show Hermes version' },
];

const HELP: Array<[string, string]> = [
  ['help', 'Show available commands'],
  ['model', 'Show or change current model'],
  ['tools', 'List available tools'],
  ['context', 'Show conversation context info'],
  ['reset', 'Clear conversation history'],
  ['compact', 'Compress conversation context'],
  ['steer', 'Inject guidance into the currently running agent turn'],
  ['queue', 'Queue a prompt to run after the current turn finishes'],
  ['version', 'Show Hermes version'],
];

export function availableCommandsUpdate(): Record<string, unknown> {
  return {
    availableCommands: COMMANDS.map((c) =>
      c.hint ? { description: c.description, input: { hint: c.hint }, name: c.name } : { description: c.description, name: c.name },
    ),
    sessionUpdate: 'available_commands_update',
  };
}

const TOOLS: Array<[string, string]> = [
  ['read_file', 'Read a text file with line numbers.'],
  ['write_file', 'Write content to a file, replacing it.'],
  ['patch', 'Apply a targeted find-and-replace edit to a file.'],
  ['search_files', 'Search file contents or names.'],
  ['terminal', 'Run a shell command in the workspace.'],
  ['process', 'Manage background processes.'],
  ['todo', 'Maintain the task list for this session.'],
  ['memory', 'Save durable notes to persistent memory.'],
  ['web_search', 'Search the web.'],
];

/** `switchModel` is the same path as session/set_model (rebuilds the agent). */
export function slashCommand(
  ctx: Ctx,
  rt: Runtime,
  text: string,
  switchModel: (modelId: string) => { provider: string; model: string },
): string | null {
  const [head = '', ...rest] = text.trim().split(/\s+/);
  const cmd = head.replace(/^\//, '').toLowerCase();
  const args = rest.join(' ').trim();
  const h = rt.rec.history;
  switch (cmd) {
    case 'help':
      return ['Available commands:', '', ...HELP.map(([c, d]) => `  /${c.padEnd(10)}  ${d}`), '', 'Unrecognized /commands are sent to the model as normal messages.'].join('\n');
    case 'model': {
      if (!args) return `Current model: ${rt.rec.model}\nProvider: ${rt.rec.provider}`;
      const m = switchModel(args);
      return `Model switched to: ${m.model}\nProvider: ${m.provider}`;
    }
    case 'tools': {
      const all = [...TOOLS, ...[...rt.mcp.keys()].map((s): [string, string] => [`mcp__${s}__echo`, `MCP tool from ${s}.`])];
      return [`Available tools (${all.length}):`, ...all.map(([n, d]) => `  ${n}: ${d}`)].join('\n');
    }
    case 'context': {
      const n = (r: string) => h.filter((m) => m.role === r).length;
      const used = contextUsed(rt);
      const threshold = Math.floor(rt.contextSize * 0.8);
      return [
        h.length ? `Conversation: ${h.length} messages` : 'Conversation is empty (no messages yet).',
        `  user: ${n('user')}, assistant: ${n('assistant')}, tool: ${n('tool')}, system: 0`,
        `Model: ${rt.rec.model}`,
        `Provider: ${rt.rec.provider}`,
        `Context usage: ~${used.toLocaleString('en-US')} / ${rt.contextSize.toLocaleString('en-US')} tokens (${((used / rt.contextSize) * 100).toFixed(1)}%)`,
        `Compression threshold: ~${threshold.toLocaleString('en-US')} tokens`,
        'Tip: run /compact to compress manually before the threshold.',
      ].join('\n');
    }
    case 'reset':
      rt.rec.history = [];
      persist(ctx, rt);
      return 'Conversation history cleared.';
    case 'compact': {
      if (!h.length) return 'Nothing to compress — conversation is empty.';
      const before = contextUsed(rt);
      rt.rec.history = compact(h, 0);
      persist(ctx, rt);
      return `Context compressed: ${h.length} -> ${rt.rec.history.length} messages\n~${before.toLocaleString('en-US')} -> ~${contextUsed(rt).toLocaleString('en-US')} tokens`;
    }
    case 'steer': {
      if (!args) return 'Usage: /steer <guidance>';
      if (rt.running) return `⏩ Steer queued for the active turn: ${args.slice(0, 80)}${args.length > 80 ? '...' : ''}`;
      rt.queue.push([{ type: 'text', text: args }]);
      return `No active turn — queued for the next turn. (${rt.queue.length} queued)`;
    }
    case 'queue':
      if (!args) return 'Usage: /queue <prompt>';
      rt.queue.push([{ type: 'text', text: args }]);
      return `Queued for the next turn. (${rt.queue.length} queued)`;
    case 'version':
      return `Hermes Agent v${ctx.settings.version}`;
    default:
      return null;
  }
}
