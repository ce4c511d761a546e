/**
 * Hermes' `delegate_task` (issue 38 item 4). A built 0.18.2 sends it as a plain execute tool
 * call ("delegate: <goal>…", content "Delegating task:\n<goal>") completed at once with a JSON
 * "dispatched" body: top-level delegations always run in the background, the ACP adapter drops
 * every subagent progress event, and the result is never delivered over ACP. So the lane shows
 * what was sent — the goal and the delegation id — and says plainly that nothing more will come
 * (web/src/entries/subagent-lane.tsx, src/cli/render/cards.ts).
 */
export interface Delegation {
  goals: string[];
  delegationId?: string;
  /** The tool call completed with the "dispatched" body: the child runs in the background. */
  dispatched: boolean;
}

/** The fields of a tool call entry this reads (the thread's ToolCallEntry, the web's ToolView). */
export interface ToolLike {
  title: string;
  toolKind?: string | undefined;
  content?: unknown[] | undefined;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const texts = (content: unknown[]): string[] =>
  content.flatMap((c) => (isObj(c) && isObj(c.content) && typeof c.content.text === 'string' ? [c.content.text] : []));

function dispatchedBody(text: string): { goals: string[]; delegationId?: string } | undefined {
  let d: unknown;
  try {
    d = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObj(d) || d.status !== 'dispatched') return undefined;
  const goals = Array.isArray(d.goals) ? d.goals.filter((g): g is string => typeof g === 'string') : [];
  return { goals, ...(typeof d.delegation_id === 'string' ? { delegationId: d.delegation_id } : {}) };
}

/** A Hermes delegation, recognised only by the exact forms 0.18.2 sends; anything else stays a plain tool card. */
export function readDelegation(tool: ToolLike): Delegation | undefined {
  if (tool.toolKind !== 'execute' || !/^delegate(: | batch \(\d+ tasks\)$| task$)/.test(tool.title)) return undefined;
  const t = texts(tool.content ?? []);
  for (const text of t) {
    const body = dispatchedBody(text);
    if (body) return { ...body, dispatched: true };
  }
  const start = t.find((x) => x.startsWith('Delegating task') || /^Delegating \d+ tasks/.test(x));
  if (!start) return undefined;
  const goal = /^Delegating task:\n([\s\S]+)$/.exec(start)?.[1];
  return { goals: goal ? [goal] : [], dispatched: false };
}
