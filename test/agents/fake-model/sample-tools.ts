/**
 * Tool lists shaped like the ones real agents send (names, parameter names, required lists),
 * provider-neutral: `{ name, schema }`, with `freeform` for codex's grammar apply_patch.
 * Look-alikes (BashOutput, read_bash, view_image, read_many_files, TodoWrite...) are included on
 * purpose: the matcher must not pick them.
 */
import type { ToolSpec } from './types.js';

const obj = (properties: Record<string, unknown>, required: string[]): Record<string, unknown> => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
});
const s = (description = ''): Record<string, unknown> => ({ type: 'string', description });
const n = { type: 'number' };
const b = { type: 'boolean' };

export const CLAUDE_CODE_TOOLS: ToolSpec[] = [
  {
    name: 'Task',
    schema: obj({ description: s(), prompt: s(), subagent_type: s() }, ['description', 'prompt', 'subagent_type']),
  },
  { name: 'Bash', schema: obj({ command: s(), timeout: n, description: s(), run_in_background: b }, ['command']) },
  { name: 'BashOutput', schema: obj({ bash_id: s(), filter: s() }, ['bash_id']) },
  { name: 'KillShell', schema: obj({ shell_id: s() }, ['shell_id']) },
  { name: 'Glob', schema: obj({ pattern: s(), path: s() }, ['pattern']) },
  { name: 'Grep', schema: obj({ pattern: s(), path: s() }, ['pattern']) },
  { name: 'Read', schema: obj({ file_path: s(), offset: n, limit: n }, ['file_path']) },
  {
    name: 'Edit',
    schema: obj({ file_path: s(), old_string: s(), new_string: s(), replace_all: b }, [
      'file_path',
      'old_string',
      'new_string',
    ]),
  },
  { name: 'Write', schema: obj({ file_path: s(), content: s() }, ['file_path', 'content']) },
  { name: 'NotebookEdit', schema: obj({ notebook_path: s(), new_source: s() }, ['notebook_path', 'new_source']) },
  { name: 'TodoWrite', schema: obj({ todos: { type: 'array', items: { type: 'object' } } }, ['todos']) },
];

/** codex 0.x with unified_exec off: array `shell`, freeform `apply_patch`, no read tool. */
export const CODEX_TOOLS: ToolSpec[] = [
  {
    name: 'shell',
    schema: obj(
      {
        command: { type: 'array', items: { type: 'string' }, description: 'The command to execute' },
        workdir: s(),
        timeout_ms: n,
        with_escalated_permissions: b,
        justification: s(),
      },
      ['command'],
    ),
  },
  {
    name: 'update_plan',
    schema: obj({ explanation: s(), plan: { type: 'array', items: { type: 'object' } } }, ['plan']),
  },
  { name: 'apply_patch', freeform: true },
  { name: 'view_image', schema: obj({ path: s() }, ['path']) },
];

/** codex's JSON-function flavour of apply_patch (models without freeform tools). */
export const CODEX_FUNCTION_PATCH_TOOLS: ToolSpec[] = [
  CODEX_TOOLS[0] as ToolSpec,
  { name: 'apply_patch', schema: obj({ input: s('The entire contents of the apply_patch command') }, ['input']) },
];

/** gemini-cli (parametersJsonSchema, lower-case types). */
export const GEMINI_CLI_TOOLS: ToolSpec[] = [
  { name: 'list_directory', schema: obj({ dir_path: s(), ignore: { type: 'array', items: s() } }, ['dir_path']) },
  { name: 'read_file', schema: obj({ absolute_path: s(), offset: n, limit: n }, ['absolute_path']) },
  { name: 'read_many_files', schema: obj({ include: { type: 'array', items: s() } }, ['include']) },
  { name: 'run_shell_command', schema: obj({ command: s(), description: s(), dir_path: s() }, ['command']) },
  { name: 'write_file', schema: obj({ file_path: s(), content: s() }, ['file_path', 'content']) },
  {
    name: 'replace',
    schema: obj({ file_path: s(), instruction: s(), old_string: s(), new_string: s() }, [
      'file_path',
      'instruction',
      'old_string',
      'new_string',
    ]),
  },
  { name: 'save_memory', schema: obj({ fact: s() }, ['fact']) },
  { name: 'write_todos', schema: obj({ todos: { type: 'array', items: { type: 'object' } } }, ['todos']) },
];

/** Older Gemini function declarations: `parameters` with upper-case OpenAPI types (qwen-code keeps `is_background`). */
export const GEMINI_UPPERCASE_TOOLS: ToolSpec[] = [
  {
    name: 'run_shell_command',
    schema: {
      type: 'OBJECT',
      properties: { command: { type: 'STRING' }, is_background: { type: 'BOOLEAN' } },
      required: ['command', 'is_background'],
    },
  },
  {
    name: 'read_file',
    schema: { type: 'OBJECT', properties: { absolute_path: { type: 'STRING' } }, required: ['absolute_path'] },
  },
];

/** opencode / kilo (camelCase paths; bash requires a description). */
export const OPENCODE_TOOLS: ToolSpec[] = [
  {
    name: 'bash',
    schema: obj({ command: s(), timeout: n, workdir: s(), description: s() }, ['command', 'description']),
  },
  {
    name: 'edit',
    schema: obj({ filePath: s(), oldString: s(), newString: s(), replaceAll: b }, [
      'filePath',
      'oldString',
      'newString',
    ]),
  },
  { name: 'glob', schema: obj({ pattern: s(), path: s() }, ['pattern']) },
  { name: 'list', schema: obj({ path: s() }, []) },
  { name: 'read', schema: obj({ filePath: s(), offset: n, limit: n }, ['filePath']) },
  { name: 'write', schema: obj({ content: s(), filePath: s() }, ['content', 'filePath']) },
  { name: 'todowrite', schema: obj({ todos: { type: 'array', items: { type: 'object' } } }, ['todos']) },
];

/** GitHub Copilot CLI: `view` / `create` with file_text, bash with a mode enum, bash-session look-alikes. */
export const COPILOT_TOOLS: ToolSpec[] = [
  {
    name: 'bash',
    schema: obj(
      {
        command: s(),
        description: s(),
        mode: { type: 'string', enum: ['sync', 'async'] },
        initial_wait: { type: 'integer', minimum: 1 },
      },
      ['command', 'description', 'mode'],
    ),
  },
  { name: 'read_bash', schema: obj({ shellId: s(), delay: n }, ['shellId', 'delay']) },
  { name: 'write_bash', schema: obj({ shellId: s(), input: s(), delay: n }, ['shellId', 'input']) },
  { name: 'view', schema: obj({ path: s(), view_range: { type: 'array', items: n } }, ['path']) },
  { name: 'create', schema: obj({ path: s(), file_text: s() }, ['path', 'file_text']) },
  { name: 'edit', schema: obj({ path: s(), old_str: s(), new_str: s() }, ['path']) },
];

/** Provider wrappers, so tests send what each agent's SDK would send. */
export const asAnthropic = (tools: ToolSpec[]): unknown[] =>
  tools.map((t) => ({
    name: t.name,
    description: `${t.name} tool`,
    input_schema: t.schema ?? { type: 'object', properties: {} },
  }));
export const asChat = (tools: ToolSpec[]): unknown[] =>
  tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      description: `${t.name} tool`,
      parameters: t.schema ?? { type: 'object', properties: {} },
    },
  }));
export const asResponses = (tools: ToolSpec[]): unknown[] =>
  tools.map((t) =>
    t.freeform
      ? {
          type: 'custom',
          name: t.name,
          description: `${t.name} tool`,
          format: { type: 'grammar', syntax: 'lark', definition: 'start: begin_patch hunk+ end_patch' },
        }
      : {
          type: 'function',
          name: t.name,
          description: `${t.name} tool`,
          strict: false,
          parameters: t.schema ?? { type: 'object', properties: {} },
        },
  );
export const asGemini = (
  tools: ToolSpec[],
  key: 'parametersJsonSchema' | 'parameters' = 'parametersJsonSchema',
): unknown[] => [
  {
    functionDeclarations: tools.map((t) => ({
      name: t.name,
      description: `${t.name} tool`,
      [key]: t.schema ?? { type: 'object', properties: {} },
    })),
  },
];
