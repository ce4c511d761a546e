/**
 * Tool-call frames as Hermes builds them (acp_adapter/tools.py): live `tool_call` has no
 * `status`; completions carry status + content but no title/locations. Used for live
 * turns and for load/resume replay.
 */
import { randomBytes } from 'node:crypto';

export type Update = Record<string, unknown>;

const KIND: Record<string, string> = { read_file: 'read', write_file: 'edit', patch: 'edit', terminal: 'execute', todo: 'other' };
export const kindOf = (name: string): string => KIND[name] ?? 'other';

/** Hermes' own live ids: `tc-` + 12 hex. */
export const liveToolId = (): string => `tc-${randomBytes(6).toString('hex')}`;

const text = (t: string) => ({ content: { text: t, type: 'text' }, type: 'content' });

export interface Diff {
  path: string;
  newText: string;
  oldText?: string;
}

export function diffBlock(d: Diff): Update {
  const b: Update = { newText: d.newText };
  if (d.oldText !== undefined) b.oldText = d.oldText;
  return { ...b, path: d.path, type: 'diff' };
}

export interface Todo {
  content: string;
  status: 'completed' | 'in_progress' | 'pending';
}

export const TODOS: Todo[] = [
  { content: 'Inspect notes', status: 'completed' },
  { content: 'Write summary', status: 'in_progress' },
  { content: 'Ship it', status: 'pending' },
];

/** `autoDiff`: an auto-approved edit shows its diff; one that will ask says so instead. */
export function toolStart(id: string, name: string, args: Record<string, unknown>, autoDiff?: Diff): Update {
  const base = { kind: kindOf(name), toolCallId: id, sessionUpdate: 'tool_call' };
  switch (name) {
    case 'read_file': {
      const path = String(args.path);
      return { ...base, locations: [{ path }], title: `read: ${path}` };
    }
    case 'terminal': {
      const cmd = String(args.command);
      return { content: [text(`$ ${cmd}`)], ...base, locations: [], title: `terminal: ${cmd}` };
    }
    case 'write_file': {
      const path = String(args.path);
      const content = autoDiff
        ? [diffBlock(autoDiff)]
        : [text(`Preparing write to ${path}. Approval prompt shows the diff.`)];
      return { content, ...base, locations: [{ path }], title: `write: ${path}` };
    }
    case 'todo': {
      const todos = args.todos as Todo[];
      const lines = todos.map((t) => `- ${t.status}: ${t.content}`).join('\n');
      return { content: [text(`Updating todo list\n\n${lines}`)], ...base, locations: [], title: `todo (${todos.length} items)` };
    }
    default: // MCP tools: title is the tool name, no locations
      return { content: [text(JSON.stringify(args))], ...base, title: name };
  }
}

export function toolDone(id: string, name: string, result: string, status: 'completed' | 'failed'): Update {
  return { content: [text(result)], kind: kindOf(name), status, toolCallId: id, sessionUpdate: 'tool_call_update' };
}

export function terminalResult(output: string, exitCode: number): string {
  const out = output.replace(/\n+$/, '');
  return out ? `terminal result\n- **output:** ${out}\n- **exit_code:** ${exitCode}` : `terminal result\n- **exit_code:** ${exitCode}`;
}

export function readResult(path: string, content: string | null): string {
  if (content === null) return `Read failed: File not found: ${path}`;
  const lines = content.replace(/\n$/, '').split('\n');
  const numbered = lines.map((l, i) => `${String(i + 1).padStart(6)}|${l}`).join('\n');
  return `Read ${path} — ${lines.length} total lines\n\n\`\`\`\n${numbered}\n\`\`\``;
}

export const writeResult = (path: string): string => `✅ write_file completed for \`${path}\`\nFiles: \`${path}\``;
export const writeDenied = (path: string): string => `Write to ${path} was denied by the user.`;

export function todoResult(todos: Todo[]): string {
  const icon = { completed: '✅', in_progress: '🔄', pending: '⏳' };
  const n = (s: Todo['status']) => todos.filter((t) => t.status === s).length;
  const items = todos.map((t) => `- ${icon[t.status]} ${t.content}`).join('\n');
  return `**Todo list**\n\n${items}\n\n**Progress:** ${n('completed')} completed, ${n('in_progress')} in progress, ${n('pending')} pending`;
}

export function planUpdate(todos: Todo[]): Update {
  return { entries: todos.map((t) => ({ content: t.content, priority: 'medium', status: t.status })), sessionUpdate: 'plan' };
}

export const BLOCKED =
  'terminal failed: BLOCKED: User denied this command. The user has NOT consented to this action. Do NOT retry this command, do NOT rephrase it, and do NOT attempt the same outcome via a different command. Stop the current workflow and wait for the user to respond before taking any further destructive or irreversible action.';

/** Hermes' dangerous-command patterns (a few), with the description it shows. */
const DANGEROUS: Array<[RegExp, string]> = [
  [/\brm\s+(-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)\b/, 'delete in root path'],
  [/\bchmod\s+(-R\s+)?777\b/, 'world-writable permissions'],
  [/\bmkfs(\.\w+)?\b/, 'format filesystem'],
  [/\bDROP\s+(TABLE|DATABASE)\b/i, 'SQL DROP'],
];

export function dangerOf(command: string): string | null {
  for (const [re, desc] of DANGEROUS) if (re.test(command)) return desc;
  return null;
}
