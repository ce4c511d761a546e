/**
 * Child environments are built from an allow-list: an agent never sees the parent's API keys
 * or tokens unless the caller passes them explicitly.
 */

export const ENV_ALLOW_LIST: readonly string[] = [
  'PATH',
  'HOME',
  'USER',
  'LOGNAME',
  'SHELL',
  'LANG',
  'LANGUAGE',
  'LC_ALL',
  'LC_CTYPE',
  'LC_MESSAGES',
  'TERM',
  'COLORTERM',
  'TMPDIR',
  'TEMP',
  'TMP',
  'TZ',
  'XDG_RUNTIME_DIR',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
  // Windows essentials, harmless elsewhere.
  'SYSTEMROOT',
  'SystemRoot',
  'COMSPEC',
  'PATHEXT',
  'APPDATA',
  'LOCALAPPDATA',
  'USERPROFILE',
  'HOMEDRIVE',
  'HOMEPATH',
  'WINDIR',
  'ProgramData',
  'ProgramFiles',
];

/** Names that look like credentials; never copied from the parent even if allow-listed by a caller. */
const SECRET_NAME = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION)/i;

/** True for a variable name that looks like a credential (API_KEY, GH_TOKEN, …). */
export function isSecretName(name: string): boolean {
  return SECRET_NAME.test(name);
}

export interface ChildEnvOptions {
  /** Extra parent variable names to pass through (e.g. a provider's non-secret settings). */
  inherit?: readonly string[];
  /** Variables set explicitly by the caller: always passed, secrets included (the user configured them). */
  set?: Record<string, string | undefined>;
}

export function buildChildEnv(parent: NodeJS.ProcessEnv, options: ChildEnvOptions = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of ENV_ALLOW_LIST) {
    const v = parent[name];
    if (v !== undefined) env[name] = v;
  }
  for (const name of options.inherit ?? []) {
    const v = parent[name];
    if (v !== undefined && !SECRET_NAME.test(name)) env[name] = v;
  }
  for (const [name, v] of Object.entries(options.set ?? {})) {
    if (v === undefined) delete env[name];
    else env[name] = v;
  }
  return env;
}

/** For logs and error messages: the names only, values of secret-looking variables masked. */
export function describeEnv(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = SECRET_NAME.test(k) ? '***' : v;
  return out;
}
