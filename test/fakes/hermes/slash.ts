/**
 * Headless slash commands (Hermes' _handle_slash_command): answered as one chunk with no
 * model call and no usage. Unknown /commands return null and go to the model.
 */
import { compressOnce } from './compaction.js';
import { replaceAll } from './history.js';
import { contextUsed, MCP_TOOLS, persist, type Ctx, type Runtime } from './runtime.js';

export const COMMANDS: Array<{ name: string; description: string; hint?: string }> = [
  { name: 'help', description: 'List available commands' },
  { name: 'model', description: 'Show current model and provider, or switch models', hint: 'model name to switch to' },
  { name: 'tools', description: 'List available tools with descriptions' },
  { name: 'context', description: 'Show conversation message counts by role' },
  { name: 'reset', description: 'Clear conversation history' },
  { name: 'compact', description: 'Compress conversation context' },
  {
    name: 'steer',
    description: 'Inject guidance into the currently running agent turn',
    hint: 'guidance for the active turn',
  },
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
      c.hint
        ? { description: c.description, input: { hint: c.hint }, name: c.name }
        : { description: c.description, name: c.name },
    ),
    sessionUpdate: 'available_commands_update',
  };
}

/** `/tools` of 0.18.2 with its 15 built-in tools (descriptions cut at 77 chars + "..."). */
const TOOLS: Array<[string, string]> = [
  ['delegate_task', 'Spawn one or more subagents to work on tasks in isolated contexts. Each subag...'],
  ['execute_code', 'Run a Python script that can call Hermes tools programmatically. Use this whe...'],
  ['memory', 'Save durable facts to persistent memory that survive across sessions. Memory ...'],
  ['patch', 'Targeted find-and-replace edits in files. Use this instead of sed/awk in term...'],
  ['process', 'Manage background processes started with terminal(background=true). Actions: ...'],
  ['read_file', 'Read a text file with line numbers and pagination. Use this instead of cat/he...'],
  ['search_files', 'Search file contents or find files by name. Use this instead of grep/rg/find/...'],
  ['session_search', 'Search past sessions stored in the local session DB, or scroll inside one. FT...'],
  ['skill_manage', 'Manage skills (create, update, delete). Skills are your procedural memory — r...'],
  ['skill_view', 'Skills allow for loading information about specific tasks and workflows, as w...'],
  ['skills_list', 'List available skills (name + description). Use skill_view(name) to load full...'],
  ['terminal', 'Execute shell commands on a Linux environment. Filesystem, current working di...'],
  ['todo', 'Manage your task list for the current session. Use for complex tasks with 3+ ...'],
  ['vision_analyze', 'Load an image into the conversation so you can see it. Accepts a URL, local f...'],
  ['write_file', 'Write content to a file, completely replacing existing content. Use this inst...'],
];

/** What each emulated MCP server (FastMCP, with resources and prompts) adds. */
function mcpTools(server: string): Array<[string, string]> {
  const desc: Record<string, string> = {
    add: 'Add two integers.',
    echo: 'Echo the text back.',
    get_prompt: `Get a prompt by name from MCP server '${server}'`,
    list_prompts: `List available prompts from MCP server '${server}'`,
    list_resources: `List available resources from MCP server '${server}'`,
    read_resource: `Read a resource by URI from MCP server '${server}'`,
  };
  return MCP_TOOLS.map((t) => [`mcp__${server}__${t}`, desc[t]!]);
}

const fmt = (n: number) => n.toLocaleString('en-US');

/** The compressor's trigger: 75% of the window, floored at 64K; 85% when the floor swallows the window. */
export function thresholdTokens(contextLength: number): number {
  const floored = Math.max(Math.floor(contextLength * 0.75), 64_000);
  return floored >= contextLength
    ? Math.max(1, Math.min(Math.floor(contextLength * 0.85), contextLength - 1))
    : floored;
}

function context(rt: Runtime): string {
  const h = rt.history;
  const n = (r: string) => h.filter((m) => m.role === r).length;
  const used = contextUsed(rt);
  const size = rt.contextSize;
  const threshold = thresholdTokens(size);
  const pct = Math.round((threshold / size) * 100);
  return [
    h.length ? `Conversation: ${h.length} messages` : 'Conversation is empty (no messages yet).',
    `  user: ${n('user')}, assistant: ${n('assistant')}, tool: ${n('tool')}, system: 0`,
    `Model: ${rt.rec.model}`,
    `Provider: ${rt.rec.provider}`,
    `Context usage: ~${fmt(used)} / ${fmt(size)} tokens (${((used / size) * 100).toFixed(1)}%)`,
    used >= threshold
      ? `Compression: due now (threshold ~${fmt(threshold)}, ${pct}%). Run /compact.`
      : `Compression: ~${fmt(threshold - used)} tokens until threshold (~${fmt(threshold)}, ${pct}%).`,
    'Tip: run /compact to compress manually before the threshold.',
  ].join('\n');
}

/** `switchModel` is the same path as session/set_model (rebuilds the agent). */
export function slashCommand(
  ctx: Ctx,
  rt: Runtime,
  text: string,
  switchModel: (modelId: string) => { provider: string; model: string },
): string | null {
  const trimmed = text.trim();
  const space = trimmed.search(/\s/);
  const cmd = (space < 0 ? trimmed : trimmed.slice(0, space)).replace(/^\//, '').toLowerCase();
  const args = space < 0 ? '' : trimmed.slice(space).trim();
  switch (cmd) {
    case 'help':
      return [
        'Available commands:',
        '',
        ...HELP.map(([c, d]) => `  /${c.padEnd(10)}  ${d}`),
        '',
        'Unrecognized /commands are sent to the model as normal messages.',
      ].join('\n');
    case 'model': {
      if (!args) return `Current model: ${rt.rec.model}\nProvider: ${rt.rec.provider}`;
      const m = switchModel(args);
      return `Model switched to: ${m.model}\nProvider: ${m.provider}`;
    }
    case 'tools': {
      const all = [...TOOLS, ...[...rt.mcp.keys()].flatMap(mcpTools)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      return [`Available tools (${all.length}):`, ...all.map(([n, d]) => `  ${n}: ${d}`)].join('\n');
    }
    case 'context':
      return context(rt);
    case 'reset':
      replaceAll(rt, []);
      persist(ctx, rt);
      return 'Conversation history cleared.';
    case 'compact': {
      const h = rt.history;
      if (!h.length) return 'Nothing to compress — conversation is empty.';
      const before = contextUsed(rt);
      // The latest user message is protected: after an overflow there may be nothing to drop (N -> N).
      const compressed = compressOnce(h);
      if (compressed) replaceAll(rt, compressed);
      persist(ctx, rt);
      return `Context compressed: ${h.length} -> ${rt.history.length} messages\n~${fmt(before)} -> ~${fmt(contextUsed(rt))} tokens`;
    }
    case 'steer': {
      if (!args) return 'Usage: /steer <guidance>';
      if (rt.running) {
        // Lands in the next tool result the model sees; a text-only turn never reads it.
        rt.pendingSteer = rt.pendingSteer === null ? args : `${rt.pendingSteer}\n${args}`;
        return `⏩ Steer queued for the active turn: ${args.slice(0, 80)}${args.length > 80 ? '...' : ''}`;
      }
      rt.queue.push(args);
      return `No active turn — queued for the next turn. (${rt.queue.length} queued)`;
    }
    case 'queue':
      if (!args) return 'Usage: /queue <prompt>';
      rt.queue.push(args);
      return `Queued for the next turn. (${rt.queue.length} queued)`;
    case 'version':
      return `Hermes Agent v${ctx.settings.version}`;
    default:
      return null;
  }
}
