/**
 * What the UI reads out of thread entries. Entries arrive as loose JSON (agents vary); these
 * guards pick the fields the views draw and keep everything else for "show raw".
 */
export type Obj = Record<string, unknown>;
export const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
export const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export interface ContentBlock {
  type: string;
  [k: string]: unknown;
}

export interface MessageView {
  kind: 'user_message' | 'assistant_message' | 'thought';
  id: string;
  text: string;
  blocks: ContentBlock[];
}

export interface ToolView {
  kind: 'tool_call';
  id: string;
  toolCallId: string;
  title: string;
  toolKind?: string;
  status: string;
  content: unknown[];
  locations: { path: string; line?: number }[];
  rawInput?: unknown;
  rawOutput?: unknown;
  settledBy?: string;
  /** When the server saw it start and end (epoch ms), so a reloaded page still shows how long it ran. */
  startedAt?: number;
  endedAt?: number;
  permission?: { status: string; optionId?: string; optionKind?: string };
}

export interface NoticeView {
  kind: 'notice';
  id: string;
  level: 'info' | 'warning' | 'error';
  code: string;
  text: string;
  /** A `branched` notice: the session it branched from. */
  parentId?: string;
}

export interface UnknownView {
  kind: 'unknown';
  id: string;
  sessionUpdate: string;
  raw: unknown;
}

export type EntryView = MessageView | ToolView | NoticeView | UnknownView;

/** Reads one entry; anything unexpected becomes an `unknown` entry (shown raw, never dropped). */
export function readEntry(e: unknown, index: number): EntryView {
  if (!isObj(e)) return { kind: 'unknown', id: `x${index}`, sessionUpdate: typeof e, raw: e };
  const id = str(e.id) ?? `x${index}`;
  switch (e.kind) {
    case 'user_message':
    case 'assistant_message':
    case 'thought':
      // `text` is read only when used: a streamed message's text is chunks, joined on demand.
      return {
        kind: e.kind,
        id,
        get text() {
          return str(e.text) ?? '';
        },
        blocks: Array.isArray(e.blocks) ? (e.blocks.filter(isObj) as ContentBlock[]) : [],
      };
    case 'tool_call': {
      const v: ToolView = {
        kind: 'tool_call',
        id,
        toolCallId: str(e.toolCallId) ?? id,
        title: str(e.title) ?? 'Tool call',
        status: str(e.status) ?? 'pending',
        content: Array.isArray(e.content) ? e.content : [],
        locations: Array.isArray(e.locations)
          ? e.locations.filter(isObj).flatMap((l) => (str(l.path) ? [{ path: l.path as string, ...(num(l.line) !== undefined ? { line: l.line as number } : {}) }] : []))
          : [],
        rawInput: e.rawInput,
        rawOutput: e.rawOutput,
      };
      const tk = str(e.toolKind);
      if (tk) v.toolKind = tk;
      const sb = str(e.settledBy);
      if (sb) v.settledBy = sb;
      const at = num(e.startedAt);
      if (at !== undefined) v.startedAt = at;
      const end = num(e.endedAt);
      if (end !== undefined) v.endedAt = end;
      if (isObj(e.permission)) {
        const p = e.permission;
        v.permission = {
          status: str(p.status) ?? 'pending',
          ...(str(p.optionId) ? { optionId: p.optionId as string } : {}),
          ...(str(p.optionKind) ? { optionKind: p.optionKind as string } : {}),
        };
      }
      return v;
    }
    case 'notice': {
      const level = e.level === 'warning' || e.level === 'error' ? e.level : 'info';
      const parentId = isObj(e.data) ? str(e.data.parentId) : undefined;
      return { kind: 'notice', id, level, code: str(e.code) ?? 'notice', text: str(e.text) ?? '', ...(parentId ? { parentId } : {}) };
    }
    default:
      return { kind: 'unknown', id, sessionUpdate: str(e.sessionUpdate) ?? str(e.kind) ?? 'unknown', raw: isObj(e) && 'raw' in e ? e.raw : e };
  }
}

export interface PlanItem {
  content: string;
  status: string;
  priority?: string;
}

export function readPlan(plan: unknown): PlanItem[] | null {
  if (!Array.isArray(plan)) return null;
  return plan.filter(isObj).map((p) => ({ content: str(p.content) ?? '', status: str(p.status) ?? 'pending', ...(str(p.priority) ? { priority: p.priority as string } : {}) }));
}

export interface CatalogOption {
  id: string;
  label: string;
  description?: string;
  group?: string;
  current: boolean;
}
export interface CatalogSelector {
  kind: string;
  currentId?: string;
  options: CatalogOption[];
}
export interface CatalogView {
  model?: CatalogSelector;
  mode?: CatalogSelector;
}

function readSelector(v: unknown): CatalogSelector | undefined {
  if (!isObj(v) || !Array.isArray(v.options)) return undefined;
  const options = v.options.filter(isObj).map((o) => ({
    id: str(o.id) ?? '',
    label: str(o.label) ?? str(o.id) ?? '',
    current: o.current === true,
    ...(str(o.description) ? { description: o.description as string } : {}),
    ...(str(o.group) ? { group: o.group as string } : {}),
  }));
  return { kind: str(v.kind) ?? 'other', options, ...(str(v.currentId) ? { currentId: v.currentId as string } : {}) };
}

/** The normalized model catalog (src/session/catalog.ts shape), read loosely. */
export function readCatalog(v: unknown): CatalogView {
  if (!isObj(v)) return {};
  const out: CatalogView = {};
  const m = readSelector(v.model);
  if (m) out.model = m;
  const d = readSelector(v.mode);
  if (d) out.mode = d;
  return out;
}

export interface ContextView {
  used?: number;
  size?: number;
  cost?: { amount: number; currency: string };
}

export interface CommandItem {
  name: string;
  description?: string;
  /** What the command takes after its name (ACP `input.hint`), when it takes anything. */
  hint?: string;
}

/** An agent's slash commands as sent (ACP AvailableCommand[]); malformed ones are left out. */
export function readCommands(v: unknown): CommandItem[] {
  if (!Array.isArray(v)) return [];
  return v.flatMap((c) => {
    if (!isObj(c) || typeof c.name !== 'string' || c.name.trim() === '') return [];
    const hint = isObj(c.input) ? str(c.input.hint) : undefined;
    return [{ name: c.name.replace(/^\//, ''), ...(str(c.description) ? { description: str(c.description)! } : {}), ...(hint ? { hint } : {}) }];
  });
}

export function readContext(v: unknown): ContextView {
  if (!isObj(v)) return {};
  const out: ContextView = {};
  const used = num(v.used);
  const size = num(v.size);
  if (used !== undefined) out.used = used;
  if (size !== undefined) out.size = size;
  if (isObj(v.cost) && num(v.cost.amount) !== undefined && str(v.cost.currency)) out.cost = { amount: v.cost.amount as number, currency: v.cost.currency as string };
  return out;
}
