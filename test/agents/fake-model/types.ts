/** Shared shapes of the fake model server (test infrastructure, never shipped). */

export type Json = Record<string, unknown>;

export type ApiName = 'anthropic' | 'openai-chat' | 'openai-responses' | 'gemini' | 'models' | 'unknown';

export type Intent = 'bash' | 'read' | 'write';

/** One tool the agent offered, normalized across the four APIs. */
export interface ToolSpec {
  name: string;
  /** JSON schema of the arguments (absent for freeform / server tools). */
  schema?: Json;
  /** A freeform tool (Responses `type: 'custom'`, e.g. codex's apply_patch): input is a raw string. */
  freeform?: boolean;
}

/** What the server needs to know about a request, whatever API it came through. */
export interface Conversation {
  /** Text of the last user message (system reminders dropped when other text exists). */
  lastUserText: string;
  /** Set when the last message is a tool result: its text. */
  toolResult?: string;
  tools: ToolSpec[];
  /** Set when the caller asked for structured JSON output: the schema it gave. */
  jsonSchema?: Json;
}

/** What the fake model decided to do. */
export type Action =
  | { kind: 'echo'; text: string; thinking?: string }
  | { kind: 'final'; text: string; thinking?: string }
  | { kind: 'slow'; text: string; chunks: number; thinking?: string }
  | { kind: 'json'; text: string }
  | { kind: 'error'; status: number; message: string }
  | {
      kind: 'tool';
      intent: Intent;
      tool: string;
      /** JSON arguments, or the raw input string of a freeform tool. */
      args: Json | string;
      freeform: boolean;
      /** How the intent was met: by a tool of that kind, or through the shell tool. */
      via: 'own-tool' | 'shell';
      thinking?: string;
    };

/** One SSE frame; `pace` marks frames a slow stream waits before. */
export interface SseFrame {
  event?: string;
  data: unknown;
  pace?: boolean;
}

export type Reply =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: 200; sse: SseFrame[]; eol?: '\n' | '\r\n' };

export interface LoggedRequest {
  seq: number;
  method: string;
  path: string;
  /** Query parameters; an API key passed as `key` is redacted. */
  query: Record<string, string>;
  /** Request headers; credential values replaced by "[redacted]". */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, or undefined when empty. */
  body: unknown;
  api: ApiName;
  model?: string;
  stream: boolean;
  /** The decision, or `{ kind: 'not_found' }` / `{ kind: 'list' }` / `{ kind: 'count' }`. */
  action: Action | { kind: 'not_found' | 'list' | 'count' | 'bad_json' };
  status: number;
  /** SSE frames written so far (streams only). */
  framesSent: number;
  /** The response was fully written. */
  done: boolean;
  /** The client went away before the response was fully written. */
  aborted: boolean;
}

/** Monotonic id source, so ids are unique per server and readable in tests. */
export type IdGen = (prefix: string) => string;
