/**
 * Is Hermes ready? present → `hermes --version` → `hermes [-p P] acp --check` → config.yaml
 * lint, each check under a time limit. A missing or unconfigured Hermes is a gap with a human
 * fix ("install Hermes", "run `hermes setup` to pick a model and add a key").
 */
import { existsSync } from 'node:fs';
import { firstLine, meaningfulLine, parseVersion } from '../command-output.js';
import { runProgram } from '../../os/run-program.js';
import { DEFAULT_CHECK_TIMEOUT_MS, emptyReadiness } from '../readiness.js';
import type { ProviderEnv, Readiness, ReadinessGap, ReadinessOptions } from '../types.js';
import { findHermes } from './binary.js';
import { lintHermesProfile } from './config-lint.js';
import { hermesRoot, isProfileName, profileHome } from './home.js';

export const HERMES_INSTALL =
  'Install Hermes Agent (https://github.com/NousResearch/hermes-agent): `curl -fsSL https://raw.githubusercontent.com/NousResearch/hermes-agent/main/scripts/install.sh | bash`, or set HERMES_BIN to its `hermes` executable.';

const setupFix = (profile?: string) =>
  `Run \`hermes${profile && profile !== 'default' ? ` -p ${profile}` : ''} setup\` to pick a model and add a key.`;

/** `-p NAME` for a named profile; nothing for the default one. */
export function profileArgs(profile?: string): string[] {
  return profile && profile !== 'default' ? ['-p', profile] : [];
}

export async function hermesReadiness(ctx: ProviderEnv, o: ReadinessOptions = {}): Promise<Readiness> {
  const r = emptyReadiness({ id: 'hermes', label: 'Hermes Agent' });
  const timeoutMs = o.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
  const search = findHermes(ctx);
  if (search.badBin) {
    r.gaps.push({
      code: 'not_executable',
      message: `HERMES_BIN is set to ${search.badBin}, which is not an executable file.`,
      fix: 'Point HERMES_BIN at the `hermes` executable, or unset it to search PATH and the usual install folders.',
    });
    return r;
  }
  if (!search.found) {
    r.gaps.push({
      code: 'not_installed',
      message: `Hermes Agent is not installed (looked in: ${search.tried.join(', ')}).`,
      fix: HERMES_INSTALL,
    });
    return r;
  }
  const bin = search.found.command;
  r.found = true;
  r.command = { command: bin, args: [...profileArgs(o.profile), 'acp', '--accept-hooks'], via: search.found.via };
  const run = (args: string[]) => runProgram(bin, args, { timeoutMs, parentEnv: ctx.env, inherit: ['HERMES_HOME'] });

  const v = await run(['--version']);
  if (v.timedOut) r.gaps.push(timeoutGap('hermes --version', timeoutMs));
  else {
    const version = parseVersion(v.stdout) ?? parseVersion(v.stderr);
    if (version) r.version = version;
    else {
      r.gaps.push({
        code: 'version_failed',
        message: `\`hermes --version\` failed: ${v.error ?? (meaningfulLine(v.stderr) || `exit code ${v.code}`)}.`,
        fix: 'Reinstall Hermes Agent; the install may be broken. ' + HERMES_INSTALL,
      });
      return finish(r);
    }
  }

  if (o.profile && !isProfileName(o.profile)) {
    r.gaps.push({
      code: 'profile_missing',
      message: `"${o.profile}" is not a valid Hermes profile name.`,
      fix: 'Profile names are lowercase letters, digits, `-` and `_`.',
    });
    return finish(r);
  }
  const home = profileHome(hermesRoot(ctx), o.profile);
  if (o.profile && o.profile !== 'default' && !existsSync(home)) {
    r.gaps.push({
      code: 'profile_missing',
      message: `Hermes has no profile "${o.profile}".`,
      fix: `Create it with \`hermes profile create ${o.profile} --clone\`.`,
    });
    return finish(r);
  }

  const check = await run([...profileArgs(o.profile), 'acp', '--check']);
  if (check.timedOut) r.gaps.push(timeoutGap('hermes acp --check', timeoutMs));
  else if (!/Hermes ACP check OK/.test(check.stdout)) {
    const why = meaningfulLine(check.stderr) || firstLine(check.stdout) || check.error || `exit code ${check.code}`;
    r.gaps.push({
      code: 'unconfigured',
      message: `Hermes is not configured: ${why.replace(/^Hermes ACP check failed:\s*/, '')}`,
      fix: setupFix(o.profile),
    });
  }

  for (const issue of lintHermesProfile(home, ctx.env)) {
    r.gaps.push({
      code: 'config',
      message: `${home}/config.yaml line ${issue.line}: ${issue.message}`,
      fix: issue.fix,
    });
  }
  return finish(r);
}

function timeoutGap(what: string, ms: number): ReadinessGap {
  return {
    code: 'timeout',
    message: `\`${what}\` did not answer within ${ms} ms.`,
    fix: `Run \`${what}\` in a terminal to see what it waits for.`,
  };
}

function finish(r: Readiness): Readiness {
  r.ready = r.found && r.gaps.length === 0;
  return r;
}
