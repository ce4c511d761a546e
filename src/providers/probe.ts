/**
 * The deep readiness check: start the agent for real, `initialize` it, and (optionally) open a
 * session in a scratch folder, all under one time limit. Auth failures (-32000, or an error
 * that says so) become an `auth` gap whose fix comes from the agent's own authMethods. Nothing
 * is prompted: a prompt could spend the user's money.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AcpClient } from '../session/client.js';
import { ConnectionClosedError, TalariaError } from '../protocol/errors.js';
import { RequestError } from '../protocol/wire-error.js';
import { agentSaid, authGap, authMethodInfos } from './auth.js';
import { spawnOptions } from './launch.js';
import { startWithQuirks, summarize, type QuirkSummary } from './quirks/index.js';
import type { Provider, ProviderEnv, Readiness, ReadinessGap, ReadinessOptions } from './types.js';

export interface ProbeOptions extends ReadinessOptions {
  /** Also try `session/new` (default true). */
  newSession?: boolean;
  /** Extra env for the agent (e.g. a fresh HOME). */
  env?: Record<string, string>;
  /** Where the agent runs (default: a scratch folder removed afterwards). */
  cwd?: string;
}

export interface ProbeResult extends Readiness {
  initialized: boolean;
  agentInfo?: { name: string; version?: string; title?: string };
  authMethods: unknown[];
  /** What the agent said when it asked for a sign-in (the `auth` gap's cause). */
  authError?: string;
  /** session/new answered (only when tried). */
  sessionOpened?: boolean;
  /** The quirk set that follows the agent, chosen from what it said in initialize. */
  quirks?: QuirkSummary & { restartedFrom?: string };
}

/** "Set CODEX_API_KEY or OPENAI_API_KEY, or log in with …" from ACP authMethods. */
export function authFix(methods: unknown[], fallback: string): string {
  const vars: string[] = [];
  const other: string[] = [];
  for (const m of methods as { type?: string; name?: string; vars?: { name?: string }[] }[]) {
    if (m?.type === 'env_var') {
      for (const v of m.vars ?? []) if (v?.name) vars.push(v.name);
    } else if (typeof m?.name === 'string') {
      other.push(m.name);
    }
  }
  const parts: string[] = [];
  if (vars.length) parts.push(`set ${vars.join(' or ')}`);
  if (other.length) parts.push(`use ${other.map((n) => `"${n}"`).join(' / ')}`);
  const sentence = parts.join(', or ');
  return sentence ? `${sentence[0]!.toUpperCase()}${sentence.slice(1)}. ${fallback}` : fallback;
}

/** ACP -32000 (the session core turns it into `auth_required`), or an error that says so. */
const isAuthError = (e: unknown) =>
  (e instanceof TalariaError && e.code === 'auth_required') ||
  (e instanceof RequestError &&
    (e.code === -32000 ||
      /auth|credential|api key|login|log in/i.test(`${e.message} ${JSON.stringify(e.data ?? '')}`)));

/** What the agent said, without the method list authRequired appends (the gap lists the methods itself). */
const authMessage = (e: unknown) => agentSaid((e as Error).message);

export async function probeProvider(provider: Provider, ctx: ProviderEnv, o: ProbeOptions = {}): Promise<ProbeResult> {
  const timeoutMs = o.timeoutMs ?? 30_000;
  const base = await provider.readiness(ctx, o);
  const r: ProbeResult = {
    ...base,
    gaps: [...base.gaps],
    warnings: [...base.warnings],
    initialized: false,
    authMethods: [],
  };
  if (!base.found) return r;
  const located = base.command ?? (await provider.locate(ctx, o));
  if (!located) return r;
  const scratch = o.cwd ? undefined : mkdtempSync(join(tmpdir(), 'talaria-probe-'));
  const cwd = o.cwd ?? scratch!;
  let client: AcpClient | undefined;
  const addGap = (g: ReadinessGap) => {
    if (!r.gaps.some((x) => x.code === g.code)) r.gaps.push(g);
  };
  try {
    const started = await startWithQuirks({
      provider,
      command: located.command,
      args: located.args,
      ...(base.version ? { version: base.version } : {}),
      hookOptions: { ...(o.profile ? { profile: o.profile } : {}), env: ctx },
      spawn: (caps) =>
        AcpClient.spawn(spawnOptions(provider, located, ctx, { cwd, ...(o.env ? { env: o.env } : {}) }), {
          setupTimeoutMs: timeoutMs,
          ...caps,
          ...(ctx.logger ? { logger: ctx.logger } : {}),
        }),
    });
    client = started.client;
    r.quirks = {
      ...summarize(started.quirks.choice),
      ...(started.restartedFrom ? { restartedFrom: started.restartedFrom.choice.set.id } : {}),
    };
    r.initialized = true;
    const caps = client.capabilities;
    r.authMethods = caps.authMethods;
    if (caps.agentInfo) r.agentInfo = caps.agentInfo;
    if (!r.version && caps.agentInfo?.version) r.version = caps.agentInfo.version;
    if (o.newSession !== false) {
      try {
        const s = await client.newSession({ cwd });
        r.sessionOpened = true;
        await client.closeSession(s, 'probe');
      } catch (e) {
        r.sessionOpened = false;
        if (isAuthError(e)) {
          // The error's own list (pi, qwen) when it has one, else initialize's; the fix is `talaria login`.
          const listed = (e as TalariaError).details?.authMethods;
          const methods = authMethodInfos(Array.isArray(listed) && listed.length ? listed : r.authMethods);
          r.authError = authMessage(e);
          addGap(authGap(provider, { message: r.authError, methods }));
        } else {
          addGap({
            code: 'unconfigured',
            message: `${provider.label} could not open a session: ${(e as Error).message}`,
            fix: provider.install,
          });
        }
      }
    }
  } catch (e) {
    addGap(startGap(provider, e, timeoutMs));
  } finally {
    await client?.close().catch(() => {});
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
  r.ready = r.found && r.initialized && r.gaps.length === 0;
  return r;
}

function startGap(provider: Provider, e: unknown, timeoutMs: number): ReadinessGap {
  if (e instanceof TalariaError && e.code === 'timeout') {
    return {
      code: 'timeout',
      message: `${provider.label} did not answer initialize within ${timeoutMs} ms.`,
      fix: `Start it by hand to see what it waits for; ${provider.install}`,
    };
  }
  if (e instanceof ConnectionClosedError) {
    const tail = String((e.details as { stderrTail?: string } | undefined)?.stderrTail ?? '')
      .trim()
      .split('\n')
      .slice(-3)
      .join(' | ');
    return {
      code: 'initialize_failed',
      message: `${provider.label} exited before it was ready${tail ? `: ${tail}` : ''}.`,
      fix: provider.install,
    };
  }
  if (e instanceof TalariaError && e.code === 'spawn_failed')
    return { code: 'spawn_failed', message: e.message, fix: provider.install };
  return {
    code: 'initialize_failed',
    message: `${provider.label} failed to start: ${(e as Error)?.message ?? String(e)}`,
    fix: provider.install,
  };
}
