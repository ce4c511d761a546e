/**
 * Picks the agent's own tool for an intent BY NAME from the tools it sent, and builds the
 * arguments from that tool's JSON schema. Names and schemas differ per agent (Bash / shell /
 * run_shell_command, file_path / filePath / absolute_path, ...), so everything is scored.
 */
import type { Action, Intent, Json, ToolSpec } from './types.js';

/** Known names, best first; an exact (case-insensitive) match wins over any heuristic. */
const NAMES: Record<Intent, string[]> = {
  bash: [
    'bash',
    'shell',
    'run_shell_command',
    'shell_command',
    'exec_command',
    'execute_command',
    'run_command',
    'run_terminal_cmd',
    'terminal',
    'execute_bash',
    'exec',
    'command',
  ],
  read: [
    'read',
    'read_file',
    'view',
    'read_text_file',
    'view_file',
    'open_file',
    'file_read',
    'cat',
    'str_replace_based_edit_tool',
    'str_replace_editor',
  ],
  write: [
    'write',
    'write_file',
    'create_file',
    'create',
    'file_write',
    'write_to_file',
    'edit',
    'edit_file',
    'str_replace_based_edit_tool',
    'str_replace_editor',
    'multiedit',
    'replace',
    'apply_patch',
    'patch',
  ],
};
const HINT: Record<Intent, RegExp> = {
  bash: /bash|shell|exec|command|terminal/,
  read: /read|view|cat/,
  write: /write|create|edit|patch|replace/,
};
/** Look-alikes that must not be chosen (BashOutput, KillShell, read_many_files, TodoWrite...). */
const AVOID: Record<Intent, RegExp> = {
  bash: /output|kill|background|status|list|search|web|todo|mcp/,
  read: /many|dir|list|folder|url|web|notebook|image|search|mcp|media/,
  write: /notebook|todo|memory|plan|mcp|config/,
};

/** Property names (normalized: lowercase, no `_`/`-`), best first. */
const COMMAND_PROPS = ['command', 'cmd', 'script', 'commandline', 'shellcommand', 'code'];
const PATH_PROPS = ['filepath', 'path', 'absolutepath', 'filename', 'file', 'targetfile', 'targetpath', 'uri'];
const CONTENT_PROPS = ['content', 'contents', 'text', 'filetext', 'newstr', 'newstring', 'body', 'data'];
const PATCH_PROPS = ['input', 'patch', 'diff'];

const norm = (s: string): string => s.toLowerCase().replace(/[-_\s]/g, '');

function props(schema: Json | undefined): Record<string, Json> {
  const p = schema?.['properties'];
  return p && typeof p === 'object' ? (p as Record<string, Json>) : {};
}

function required(schema: Json | undefined): string[] {
  const r = schema?.['required'];
  return Array.isArray(r) ? r.filter((x): x is string => typeof x === 'string') : [];
}

/** First type of a property (Gemini spells them upper-case; JSON schema allows arrays). */
function typeOf(schema: Json | undefined): string | undefined {
  const t = schema?.['type'];
  const first = Array.isArray(t) ? t.find((x) => x !== 'null' && x !== 'NULL') : t;
  return typeof first === 'string' ? first.toLowerCase() : undefined;
}

/** The schema property whose name best matches one of `wanted` (normalized names, best first). */
export function findProp(schema: Json | undefined, wanted: string[]): string | undefined {
  const keys = Object.keys(props(schema));
  for (const w of wanted) {
    const hit = keys.find((k) => norm(k) === w);
    if (hit !== undefined) return hit;
  }
  return undefined;
}

function isPatchTool(t: ToolSpec): boolean {
  return /patch/.test(norm(t.name));
}

function score(intent: Intent, t: ToolSpec): number {
  // claude-code-acp offers its client-backed tools over MCP as `mcp__acp__Bash`, `mcp__acp__Read`…
  const n = t.name.toLowerCase().replace(/^mcp__acp__/, '');
  const exact = NAMES[intent].indexOf(n);
  let s = exact >= 0 ? 100 - exact : HINT[intent].test(n) ? 40 : 0;
  if (s === 0) return 0;
  if (exact < 0 && AVOID[intent].test(n)) return 0;
  if (t.freeform) return intent === 'write' && isPatchTool(t) ? s : 0;
  // The schema confirms or contradicts the name.
  const hasProps = Object.keys(props(t.schema)).length > 0;
  if (hasProps) {
    const key = intent === 'bash' ? COMMAND_PROPS : isPatchTool(t) ? PATCH_PROPS : PATH_PROPS;
    s += findProp(t.schema, key) !== undefined ? 10 : -30;
  }
  return s;
}

/** The best tool for an intent, or undefined when nothing fits. */
export function pickTool(intent: Intent, tools: ToolSpec[]): ToolSpec | undefined {
  let best: ToolSpec | undefined;
  // A name that only hints at the intent must not be contradicted by its schema (read_bash).
  let bestScore = 39;
  for (const t of tools) {
    const s = score(intent, t);
    if (s > bestScore) [best, bestScore] = [t, s];
  }
  return best;
}

/** A sensible value for a required property nobody asked for, from its schema. */
export function defaultFor(name: string, schema: Json, intent?: Intent): unknown {
  if ('default' in schema) return schema['default'];
  if ('const' in schema) return schema['const'];
  const en = schema['enum'];
  if (Array.isArray(en) && en.length > 0) {
    // An action enum (the text editor tool's command) should name the intent.
    const want = intent === 'read' ? ['view', 'read'] : intent === 'write' ? ['create', 'write'] : [];
    return en.find((v) => typeof v === 'string' && want.includes(v)) ?? en[0];
  }
  switch (typeOf(schema)) {
    case 'string':
      return /description|justification|reason|explanation|summary|title/i.test(name)
        ? 'Requested by the fake model'
        : '';
    case 'integer':
    case 'number': {
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : Infinity;
      const min = typeof schema['minimum'] === 'number' ? schema['minimum'] : 0;
      return /timeout/i.test(name) ? Math.max(min, Math.min(max, 120_000)) : min;
    }
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'object':
      return objectFromSchema(schema, intent);
    case 'null':
      return null;
    default:
      return '';
  }
}

/** An object holding every required property of `schema`, each with its default. */
export function objectFromSchema(schema: Json, intent?: Intent, preset: Json = {}): Json {
  const out: Json = { ...preset };
  const p = props(schema);
  for (const key of required(schema)) {
    if (key in out) continue;
    out[key] = defaultFor(key, p[key] ?? {}, intent);
  }
  return out;
}

/** Quote for a POSIX shell. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Arguments for a shell tool: array-typed commands (codex's `shell`) get `["bash","-lc",CMD]`. */
function shellArgs(t: ToolSpec, cmd: string): Json | string {
  if (t.freeform) return cmd;
  const key = findProp(t.schema, COMMAND_PROPS) ?? firstRequiredString(t.schema) ?? 'command';
  const isArray = typeOf(props(t.schema)[key]) === 'array';
  return objectFromSchema(t.schema ?? {}, 'bash', { [key]: isArray ? ['bash', '-lc', cmd] : cmd });
}

function firstRequiredString(schema: Json | undefined): string | undefined {
  const p = props(schema);
  return required(schema).find((k) => typeOf(p[k]) === 'string');
}

/** An apply_patch body that creates (or replaces) one file. */
export function addFilePatch(path: string, content: string): string {
  const lines = content
    .replace(/\n$/, '')
    .split('\n')
    .map((l) => '+' + l);
  return ['*** Begin Patch', `*** Add File: ${path}`, ...lines, '*** End Patch'].join('\n');
}

export interface ToolRequest {
  intent: Intent;
  /** bash: the command; read/write: the absolute path. */
  target: string;
  /** write: the file content. */
  content?: string;
}

/**
 * Plans the tool call for a request: the agent's own tool when it has one, else its shell tool
 * (`cat`, `printf > file`), else undefined.
 */
export function planToolCall(req: ToolRequest, tools: ToolSpec[]): Extract<Action, { kind: 'tool' }> | undefined {
  const own = pickTool(req.intent, tools);
  if (own) {
    return {
      kind: 'tool',
      intent: req.intent,
      tool: own.name,
      args: ownArgs(req, own),
      freeform: !!own.freeform,
      via: 'own-tool',
    };
  }
  if (req.intent === 'bash') return undefined;
  const shell = pickTool('bash', tools);
  if (!shell) return undefined;
  const cmd =
    req.intent === 'read' ? `cat ${shq(req.target)}` : `printf '%s' ${shq(req.content ?? '')} > ${shq(req.target)}`;
  return {
    kind: 'tool',
    intent: req.intent,
    tool: shell.name,
    args: shellArgs(shell, cmd),
    freeform: !!shell.freeform,
    via: 'shell',
  };
}

function ownArgs(req: ToolRequest, t: ToolSpec): Json | string {
  if (req.intent === 'bash') return shellArgs(t, req.target);
  if (req.intent === 'write' && isPatchTool(t)) {
    const patch = addFilePatch(req.target, req.content ?? '');
    if (t.freeform) return patch;
    const key = findProp(t.schema, PATCH_PROPS) ?? firstRequiredString(t.schema) ?? 'input';
    return objectFromSchema(t.schema ?? {}, 'write', { [key]: patch });
  }
  const preset: Json = {};
  preset[findProp(t.schema, PATH_PROPS) ?? 'path'] = req.target;
  if (req.intent === 'write') {
    const key = findProp(t.schema, CONTENT_PROPS);
    if (key !== undefined || Object.keys(props(t.schema)).length === 0) preset[key ?? 'content'] = req.content ?? '';
  }
  return objectFromSchema(t.schema ?? {}, req.intent, preset);
}
