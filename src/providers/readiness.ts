/**
 * Readiness of a command-line agent: found → version → credentials, each check under a time
 * limit, each problem a gap with a human fix. Deep checks that start the agent live in probe.ts.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, join } from 'node:path';
import { configPath } from './config.js';
import { talariaHome } from '../os/home.js';
import { agentEnv } from './launch.js';
import { meaningfulLine, parseVersion } from './command-output.js';
import { runProgram } from '../os/run-program.js';
import type { Located, Provider, ProviderEnv, Readiness, ReadinessGap, ReadinessOptions } from './types.js';

/** What the agent will actually be started with, for the credential check (not our own env). */
export interface AgentView {
  id: string;
  env: Record<string, string>;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 10_000;

export interface CliReadinessSpec {
  /** Arguments that print the version (null: the agent has no such flag). */
  versionArgs?: readonly string[] | null;
  /** Read the version from the npm package that ships the command (no process started). */
  versionFromPackage?: boolean;
  /** A missing credential, when the agent needs one and none is visible to it (`agent.env`). */
  credentials?(ctx: ProviderEnv, agent: AgentView): ReadinessGap | undefined;
}

export function emptyReadiness(p: Pick<Provider, 'id' | 'label'>): Readiness {
  return { providerId: p.id, label: p.label, found: false, ready: false, gaps: [], warnings: [] };
}

export function notInstalled(p: Pick<Provider, 'label' | 'install'>, looked: string): ReadinessGap {
  return { code: 'not_installed', message: `${p.label} was not found (${looked}).`, fix: p.install };
}

export async function cliReadiness(
  p: Pick<Provider, 'id' | 'label' | 'install' | 'locate'> & Partial<Pick<Provider, 'env'>>,
  spec: CliReadinessSpec,
  ctx: ProviderEnv,
  o: ReadinessOptions = {},
): Promise<Readiness> {
  const r = emptyReadiness(p);
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  let located: Located | undefined;
  try {
    located = await p.locate(ctx, o);
  } catch (e) {
    r.gaps.push({
      code: 'not_installed',
      message: `Looking for ${p.label} failed: ${(e as Error).message}`,
      fix: p.install,
    });
  }
  if (!located) {
    if (r.gaps.length === 0) r.gaps.push(notInstalled(p, 'not on PATH'));
    return r;
  }
  r.found = true;
  r.command = located;
  if (spec.versionFromPackage) r.version = packageVersion(located);
  if (!r.version && spec.versionArgs) {
    const v = await runProgram(
      located.command,
      [...located.args.filter((a) => a.endsWith('.js') || a.endsWith('.mjs')), ...spec.versionArgs],
      { timeoutMs, parentEnv: ctx.env },
    );
    if (v.timedOut) {
      r.warnings.push({
        code: 'timeout',
        message: `${p.label} did not print its version within ${timeoutMs} ms.`,
        fix: `Check that \`${located.command} ${spec.versionArgs.join(' ')}\` works in a terminal.`,
      });
    } else {
      r.version = parseVersion(v.stdout) ?? parseVersion(v.stderr);
      if (!r.version) {
        r.warnings.push({
          code: 'version_failed',
          message: `${p.label} did not report a version${v.error ? ` (${v.error})` : meaningfulLine(v.stderr) ? ` (${meaningfulLine(v.stderr)})` : ''}.`,
          fix: `Check that \`${located.command} ${spec.versionArgs.join(' ')}\` works in a terminal.`,
        });
      }
    }
  }
  const cred = spec.credentials?.(ctx, { id: p.id, env: p.env ? agentEnv(p as Provider, ctx) : {} });
  if (cred) r.gaps.push(cred);
  r.ready = r.gaps.length === 0;
  return r;
}

/** The version of the npm package a located command belongs to (bin symlinks followed). */
export function packageVersion(located: Located): string | undefined {
  const file = [...located.args].reverse().find((a) => /\.(c|m)?js$/.test(a)) ?? located.command;
  let dir: string;
  try {
    dir = dirname(realpathSync(file));
  } catch {
    return undefined;
  }
  for (let i = 0; i < 6; i++) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        const v = (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: unknown }).version;
        if (typeof v === 'string') return v;
      } catch {
        return undefined;
      }
    }
    const up = dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return undefined;
}

/**
 * A credential gap when the agent would see none of `vars` (in `agent.env`: what it is started
 * with; our own env when no agent is given) and none of `files` (absolute, or relative to home)
 * exists. A key set only in OUR env is named, with how to hand it on: it is never passed by itself.
 * `fix` is the agent's own login route, written to follow "or ".
 */
export function credentialGap(
  ctx: ProviderEnv,
  o: { vars: readonly string[]; files?: readonly string[]; label: string; fix: string; agent?: AgentView },
): ReadinessGap | undefined {
  const seen = o.agent?.env ?? ctx.env;
  if (o.vars.some((v) => (seen[v] ?? '') !== '')) return undefined;
  if ((o.files ?? []).some((f) => existsSync(isAbsolute(f) ? f : join(ctx.homeDir, f)))) return undefined;
  const where = configPath(talariaHome(ctx));
  const id = JSON.stringify(o.agent?.id ?? o.label);
  const ours = o.vars.filter((v) => (ctx.env[v] ?? '') !== '');
  if (o.agent && ours.length) {
    const names = ours.map((v) => JSON.stringify(v)).join(', ');
    return {
      code: 'auth',
      message: `${ours.join(', ')} ${ours.length > 1 ? 'are' : 'is'} set in your environment, but Talaria hands no credential of yours to ${o.label} unless you say so.`,
      fix: `Add "passEnv": [${names}] to agents.${id} in ${where}, or ${o.fix}`,
    };
  }
  return {
    code: 'auth',
    message: `No credentials for ${o.label} were found (${o.vars.join(', ')} unset).`,
    fix: `Put ${o.vars[0]} in agents.${id}.env in ${where}, or ${o.fix}`,
  };
}
