/**
 * Persisted permission rules (global / workspace / session) and the decision audit log. Rules,
 * outcomes and subjects are kept as the JSON they are: the store does not interpret them (the
 * permission layer does, and the harness converts between the two).
 */
import type { SqlDb } from './sql.js';
import { StoreError } from './errors.js';
import { fromJson, toJson } from './json.js';

export type RuleScope = 'global' | 'workspace' | 'session';

/** A permission rule as stored: `decision` plus whatever matchers it has. */
export interface RuleJson {
  /** Stable id (the row id when the rule has none). */
  id?: string;
  decision: string;
  source?: string;
  [matcher: string]: unknown;
}

/** A permission answer as stored (the ACP outcome shape). */
export interface OutcomeJson {
  outcome: string;
  optionId?: string;
}

export interface StoredRule {
  id: number;
  scope: RuleScope;
  /** Workspace or session id; undefined for global rules. */
  scopeId?: string;
  rule: RuleJson;
  source?: string;
  createdAt: number;
}

export interface NewRule {
  scope: RuleScope;
  scopeId?: string;
  rule: RuleJson;
  /** Defaults to rule.source. */
  source?: string;
}

/**
 * What an audit row is made from: the broker's decision record, or the `permission.decided`
 * session event (which lacks the subject and option kind).
 */
export interface AuditInput {
  requestKey?: string;
  /** The agent's session id (the decision's sessionId / the event envelope's sessionId). */
  sessionId?: string;
  toolCallId?: string;
  outcome: unknown;
  optionKind?: string;
  decidedBy: string;
  answeredBy?: string;
  rule?: unknown;
  reason?: string;
  subject?: unknown;
  at: number;
}

export interface AuditRecord {
  id: number;
  /** Talaria session id, when recorded through one. */
  sessionId?: string;
  agentSessionId?: string;
  requestKey?: string;
  toolCallId?: string;
  decidedBy: string;
  outcome: OutcomeJson;
  optionKind?: string;
  answeredBy?: string;
  reason?: string;
  rule?: RuleJson;
  subject?: unknown;
  at: number;
}

interface RuleRow {
  id: number;
  scope: RuleScope;
  scope_id: string | null;
  rule: string;
  source: string | null;
  created_at: number;
}

interface AuditRow {
  id: number;
  session_id: string | null;
  agent_session_id: string | null;
  request_key: string | null;
  tool_call_id: string | null;
  decided_by: string;
  outcome: string;
  option_kind: string | null;
  answered_by: string | null;
  reason: string | null;
  rule: string | null;
  subject: string | null;
  at: number;
}

function toRule(r: RuleRow): StoredRule {
  const rule = fromJson<RuleJson>(r.rule) ?? { decision: 'ask' };
  // The row id is the rule's store key unless the rule carries its own.
  const s: StoredRule = {
    id: r.id,
    scope: r.scope,
    rule: { ...rule, id: rule.id ?? String(r.id) },
    createdAt: r.created_at,
  };
  if (r.scope_id !== null) s.scopeId = r.scope_id;
  if (r.source !== null) s.source = r.source;
  return s;
}

function toAudit(r: AuditRow): AuditRecord {
  const a: AuditRecord = {
    id: r.id,
    decidedBy: r.decided_by,
    outcome: fromJson<OutcomeJson>(r.outcome) ?? { outcome: 'cancelled' },
    at: r.at,
  };
  if (r.session_id !== null) a.sessionId = r.session_id;
  if (r.agent_session_id !== null) a.agentSessionId = r.agent_session_id;
  if (r.request_key !== null) a.requestKey = r.request_key;
  if (r.tool_call_id !== null) a.toolCallId = r.tool_call_id;
  if (r.option_kind !== null) a.optionKind = r.option_kind;
  if (r.answered_by !== null) a.answeredBy = r.answered_by;
  if (r.reason !== null) a.reason = r.reason;
  const rule = fromJson<RuleJson>(r.rule);
  if (rule !== undefined) a.rule = rule;
  const subject = fromJson(r.subject);
  if (subject !== undefined) a.subject = subject;
  return a;
}

export type PermissionsRepo = ReturnType<typeof createPermissionsRepo>;

export function createPermissionsRepo(db: SqlDb, now: () => number = Date.now) {
  const insertRule = db.prepare<[string, string | null, string, string | null, number], { id: number }>(
    'INSERT INTO permission_rules (scope, scope_id, rule, source, created_at) VALUES (?, ?, ?, ?, ?) RETURNING id',
  );
  const ruleById = db.prepare<[number], RuleRow>('SELECT * FROM permission_rules WHERE id = ?');
  const deleteRule = db.prepare('DELETE FROM permission_rules WHERE id = ?');
  const rulesIn = db.prepare<[string, string | null], RuleRow>(
    'SELECT * FROM permission_rules WHERE scope = ? AND scope_id IS NOT DISTINCT FROM ? ORDER BY id',
  );
  const allRules = db.prepare<[], RuleRow>('SELECT * FROM permission_rules ORDER BY id');
  const insertAudit = db.prepare(
    `INSERT INTO permission_audit (session_id, agent_session_id, request_key, tool_call_id, decided_by, outcome,
       option_kind, answered_by, reason, rule, subject, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const auditFor = db.prepare<[string], AuditRow>('SELECT * FROM permission_audit WHERE session_id = ? ORDER BY id');
  const auditAll = db.prepare<[], AuditRow>('SELECT * FROM permission_audit ORDER BY id');

  const repo = {
    addRule(input: NewRule): StoredRule {
      if (input.scope !== 'global' && !input.scopeId) {
        throw new StoreError('invalid_argument', `a ${input.scope} rule needs a scopeId`);
      }
      const scopeId = input.scope === 'global' ? null : input.scopeId!;
      const { id } = insertRule.get(
        input.scope,
        scopeId,
        JSON.stringify(input.rule),
        input.source ?? input.rule.source ?? null,
        now(),
      )!;
      return toRule(ruleById.get(id)!);
    },
    removeRule(id: number): boolean {
      return deleteRule.run(id).changes > 0;
    },
    /** Every rule, or those of one scope (a workspace's, a session's). */
    listRules(scope?: RuleScope, scopeId?: string): StoredRule[] {
      const rows =
        scope === undefined ? allRules.all() : rulesIn.all(scope, scope === 'global' ? null : (scopeId ?? null));
      return rows.map(toRule);
    },
    /**
     * The rules that apply to a session, in policy order: global, then workspace, then session
     * (the policy lets the last match win, so the most specific scope decides).
     */
    rulesFor(ctx: { workspaceId?: string; sessionId?: string } = {}): RuleJson[] {
      const rows = [...rulesIn.all('global', null)];
      if (ctx.workspaceId) rows.push(...rulesIn.all('workspace', ctx.workspaceId));
      if (ctx.sessionId) rows.push(...rulesIn.all('session', ctx.sessionId));
      return rows.map((r) => toRule(r).rule);
    },
    /** One audit row. `talariaSessionId` ties it to a stored session (the event carries the agent's id). */
    audit(ev: AuditInput, talariaSessionId?: string): void {
      insertAudit.run(
        talariaSessionId ?? null,
        ev.sessionId ?? null,
        ev.requestKey ?? null,
        ev.toolCallId ?? null,
        ev.decidedBy,
        JSON.stringify(ev.outcome ?? null),
        ev.optionKind ?? null,
        ev.answeredBy ?? null,
        ev.reason ?? null,
        toJson(ev.rule),
        toJson(ev.subject),
        ev.at,
      );
    },
    listAudit(talariaSessionId?: string): AuditRecord[] {
      return (talariaSessionId === undefined ? auditAll.all() : auditFor.all(talariaSessionId)).map(toAudit);
    },
  };
  return repo;
}
