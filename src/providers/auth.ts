/**
 * Sign-in: what an agent's `authMethods` mean, and the "this agent wants a sign-in" mark.
 *
 * An agent says it needs credentials only when Talaria opens a session (ACP -32000 at
 * `session/new` or at a prompt), not in a cheap readiness check. So the host leaves a mark under
 * `$TALARIA_HOME/auth/` when it sees one, readiness turns the mark into an `auth` gap listing the
 * agent's methods with the fix `talaria login AGENT [METHOD]`, and the mark goes when a session
 * opens again (or `talaria login` succeeds). The mark holds no secret: method ids, names, types.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { talariaHome } from '../os/home.js';
import type {
  AuthKind,
  AuthMethodInfo,
  Provider,
  ProviderEnv,
  Readiness,
  ReadinessGap,
  ReadinessOptions,
} from './types.js';
import { isRecord } from '../os/record.js';

export type { AuthKind, AuthMethodInfo };

/** What a terminal method runs: the agent's own command plus `args` (ACP), or `_meta["terminal-auth"]`'s command. */
export interface TerminalLaunch {
  /** Undefined: the agent's own command (ACP `type: "terminal"`). */
  command?: string;
  args: string[];
  env: Record<string, string>;
  label?: string;
}

type RawMethod = {
  id?: unknown;
  name?: unknown;
  type?: unknown;
  description?: unknown;
  args?: unknown;
  env?: unknown;
  vars?: unknown;
  _meta?: unknown;
};

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
const stringMap = (v: unknown): Record<string, string> =>
  isRecord(v)
    ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string'))
    : {};

/** `_meta["terminal-auth"]` (claude-agent-acp, copilot): `{command, args, env, label}`. */
function metaTerminal(m: RawMethod): TerminalLaunch | undefined {
  const meta = m._meta as Record<string, unknown> | null | undefined;
  const t = meta?.['terminal-auth'] as
    { command?: unknown; args?: unknown; env?: unknown; label?: unknown } | undefined;
  if (typeof t !== 'object' || t === null || typeof t.command !== 'string' || t.command === '') return undefined;
  return {
    command: t.command,
    args: strings(t.args),
    env: stringMap(t.env),
    ...(typeof t.label === 'string' ? { label: t.label } : {}),
  };
}

export function authKind(m: unknown): AuthKind {
  const r = (m ?? {}) as RawMethod;
  if (r.type === 'terminal' || metaTerminal(r)) return 'terminal';
  if (r.type === 'env_var') return 'env_var';
  return 'agent';
}

/** How to run a terminal method (undefined for other kinds). */
export function terminalLaunch(m: unknown): TerminalLaunch | undefined {
  const r = (m ?? {}) as RawMethod;
  const meta = metaTerminal(r);
  if (meta) return meta;
  if (r.type === 'terminal') return { args: strings(r.args), env: stringMap(r.env) };
  return undefined;
}

/** The agent's methods, well-formed ones only (an id is required), as shown to the user. */
export function authMethodInfos(methods: readonly unknown[]): AuthMethodInfo[] {
  const out: AuthMethodInfo[] = [];
  for (const m of methods) {
    const r = (m ?? {}) as RawMethod;
    if (typeof r.id !== 'string' || r.id === '') continue;
    const kind = authKind(r);
    const vars =
      kind === 'env_var' && Array.isArray(r.vars)
        ? (r.vars as { name?: unknown }[]).map((v) => v?.name).filter((n): n is string => typeof n === 'string')
        : [];
    out.push({
      id: r.id,
      name: typeof r.name === 'string' && r.name !== '' ? r.name : r.id,
      kind,
      ...(typeof r.description === 'string' && r.description !== '' ? { description: r.description } : {}),
      ...(vars.length ? { vars } : {}),
    });
  }
  return out;
}

/** `token (agent), setup — Set up a key (terminal)`: one line for a gap's message. */
export function describeMethods(methods: readonly AuthMethodInfo[]): string {
  return methods
    .map(
      (m) =>
        `${m.id}${m.name !== m.id ? ` — ${m.name}` : ''} (${m.kind === 'env_var' ? `set ${(m.vars ?? []).join(' or ') || 'a variable'}` : m.kind})`,
    )
    .join(', ');
}

/** An auth_required message without the method list session/errors.ts appends (a gap lists the methods itself). */
export function agentSaid(message: string): string {
  return message.replace(/; (?:sign in with one of: .*|log in to .* \(it lists no auth method\))$/, '');
}

/** The `auth` gap for an agent that asked for a sign-in, listing its methods, fixed by `talaria login`. */
export function authGap(
  p: Pick<Provider, 'id' | 'label'>,
  o: { message?: string; methods: readonly AuthMethodInfo[] },
): ReadinessGap {
  const usable = o.methods.filter((m) => m.kind !== 'env_var');
  // A bare client (the probe) says "the agent"; the gap names it.
  const said = o.message
    ? agentSaid(o.message)
        .replace(/\.$/, '')
        .replace(/^the agent\b/, p.label)
    : '';
  const head = said ? `${said}.` : `${p.label} needs you to sign in.`;
  const listed = o.methods.length ? ` Sign-in methods: ${describeMethods(o.methods)}.` : ' It lists no sign-in method.';
  const fix =
    usable.length === 1
      ? `talaria login ${p.id} ${usable[0]!.id}`
      : usable.length > 1
        ? `talaria login ${p.id} METHOD (one of: ${usable.map((m) => m.id).join(', ')})`
        : o.methods.length
          ? `Set ${o.methods.flatMap((m) => m.vars ?? []).join(' or ')} in agents.${JSON.stringify(p.id)}.env of config.json, then try again.`
          : `talaria login ${p.id}, or log in to ${p.label} in a terminal, then try again.`;
  return { code: 'auth', message: `${head}${listed}`, fix, authMethods: [...o.methods] };
}

// ---- the mark --------------------------------------------------------------------------------

export interface AuthMark {
  providerId: string;
  profile?: string;
  /** What the agent said (its error message). */
  message: string;
  methods: AuthMethodInfo[];
  /** Where it was seen: `session/new`, `session/prompt`, `probe`. */
  where: string;
  at: number;
  /**
   * The methods as the agent lists them to a sign-in (terminal auth offered), read once by the
   * first readiness check after the mark: an everyday session is not offered terminal auth, so
   * `methods` can lack the terminal ones the fix should name.
   */
  signInMethods?: AuthMethodInfo[];
}

type HomeCtx = Pick<ProviderEnv, 'env' | 'homeDir'>;

function markFile(home: string, providerId: string, profile?: string): string {
  return join(home, 'auth', `${encodeURIComponent(profile ? `${providerId}@${profile}` : providerId)}.json`);
}

const homeOf = (where: HomeCtx | string) => (typeof where === 'string' ? where : talariaHome(where));

export function readAuthMark(where: HomeCtx | string, providerId: string, profile?: string): AuthMark | undefined {
  try {
    const m = JSON.parse(readFileSync(markFile(homeOf(where), providerId, profile), 'utf8')) as AuthMark;
    return typeof m?.message === 'string' && Array.isArray(m.methods) ? m : undefined;
  } catch {
    // No mark, or a broken one (treated as none: the next auth_required writes it again).
    return undefined;
  }
}

/** Leaves the mark (written whole: a reader never sees half a file). */
export function markAuthRequired(
  where: HomeCtx | string,
  m: Omit<AuthMark, 'at' | 'methods'> & { authMethods: readonly unknown[] },
): void {
  const file = markFile(homeOf(where), m.providerId, m.profile);
  mkdirSync(join(homeOf(where), 'auth'), { recursive: true, mode: 0o700 });
  const mark: AuthMark = {
    providerId: m.providerId,
    ...(m.profile ? { profile: m.profile } : {}),
    message: m.message,
    methods: authMethodInfos(m.authMethods),
    where: m.where,
    at: Date.now(),
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(mark, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
}

export function clearAuthMark(where: HomeCtx | string, providerId: string, profile?: string): void {
  rmSync(markFile(homeOf(where), providerId, profile), { force: true });
}

/** The session's methods, then those only a sign-in run lists (by id, no duplicates). */
export function mergeMethods(a: readonly AuthMethodInfo[], b: readonly AuthMethodInfo[]): AuthMethodInfo[] {
  const seen = new Set(a.map((m) => m.id));
  return [...a, ...b.filter((m) => !seen.has(m.id))];
}

/** Reads the methods a sign-in run would list (sign-in.ts starts the agent offering terminal auth). */
export type SignInLister = (p: Provider, ctx: ProviderEnv, o: { profile?: string }) => Promise<AuthMethodInfo[]>;

/**
 * The provider with the mark's gap added to its readiness (the mark is read at each check). With
 * `listSignIn`, the first check after a mark asks the agent for its sign-in methods once and keeps
 * them in the mark, so the gap and its fix name the terminal methods too.
 */
export function withAuthMark(p: Provider, home: string, o: { listSignIn?: SignInLister } = {}): Provider {
  const readiness = p.readiness;
  return {
    ...p,
    async readiness(ctx: ProviderEnv, ro?: ReadinessOptions): Promise<Readiness> {
      const r = await readiness.call(p, ctx, ro);
      const profile = p.profiles ? ro?.profile : undefined;
      let mark = readAuthMark(home, p.id, profile);
      if (!mark || !r.found || r.gaps.some((g) => g.code === 'auth')) return r;
      if (!mark.signInMethods && o.listSignIn)
        mark = await withSignInMethods(mark, home, () => o.listSignIn!(p, ctx, profile ? { profile } : {}));
      return {
        ...r,
        ready: false,
        gaps: [
          ...r.gaps,
          authGap(p, { message: mark.message, methods: mergeMethods(mark.methods, mark.signInMethods ?? []) }),
        ],
      };
    },
  };
}

async function withSignInMethods(
  mark: AuthMark,
  home: string,
  list: () => Promise<AuthMethodInfo[]>,
): Promise<AuthMark> {
  let methods: AuthMethodInfo[];
  try {
    methods = await list();
  } catch {
    // The agent would not start for it: the session's list stands (and is asked again next time).
    return mark;
  }
  const next: AuthMark = { ...mark, signInMethods: methods };
  const file = markFile(home, mark.providerId, mark.profile);
  // Only over the mark it was read from: a sign-in may have cleared it meanwhile.
  if (readAuthMark(home, mark.providerId, mark.profile)?.at !== mark.at) return next;
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n', { mode: 0o600 });
  renameSync(tmp, file);
  return next;
}
