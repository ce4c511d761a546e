/**
 * `NAME=value` words in front of a command, judged one way everywhere: the dangerous-command
 * net (dangerous.ts), allow/ask rule matching (policy.ts) and grant matching (grants.ts).
 * A plain assignment is ignored — it changes what the command sees, not what runs, and agents
 * add their own (claude-code-acp's terminal/create sends env `CLAUDECODE=1`, which Talaria
 * judges as `CLAUDECODE=1 echo hi`). A risky one — a name that makes a loader, an interpreter
 * or a shell run other code — is never ignored: the line is dangerous and matches no rule or
 * grant written for the bare command.
 * tests: test/permission/env-words.test.ts
 */

/** Exact names that change what runs (search paths, startup code, hooks, helper commands). */
const RISKY_NAMES = new Set([
  'PATH',
  'IFS',
  'PS4',
  'ENV',
  'BASH_ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PROMPT_COMMAND',
  'HOME',
  'ZDOTDIR',
  'NODE_OPTIONS',
  'NODE_PATH',
  'NODE_REPL_EXTERNAL_MODULE',
  'PERLLIB',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
  'LUA_INIT',
  'LUA_PATH',
  'LUA_CPATH',
  'PHPRC',
  'PHP_INI_SCAN_DIR',
  'R_PROFILE',
  'R_PROFILE_USER',
  'R_ENVIRON',
  'R_ENVIRON_USER',
  'TCLLIBPATH',
  'GCONV_PATH',
  'EDITOR',
  'VISUAL',
  'PAGER',
  'MANPAGER',
  'LESSOPEN',
  'LESSCLOSE',
  'BROWSER',
  'SSH_ASKPASS',
  'SUDO_ASKPASS',
  'RUSTC_WRAPPER',
]);

/** Whole families (the loader's, Python's, Perl's, Ruby's, git's, npm's config). */
const RISKY_PREFIX = /^(?:LD_|DYLD_|PYTHON|PERL5|RUBY|GEM_|GIT_|BASH_FUNC_)|^npm_config_/i;

/** Members of those families that only tune output or metadata. */
const HARMLESS = new Set([
  'PYTHONUNBUFFERED',
  'PYTHONDONTWRITEBYTECODE',
  'PYTHONIOENCODING',
  'PYTHONUTF8',
  'PYTHONHASHSEED',
  'PYTHONFAULTHANDLER',
  'PYTHONNOUSERSITE',
  'PYTHONSAFEPATH',
  'PYTHONDEVMODE',
  'PYTHONTRACEMALLOC',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_TERMINAL_PROMPT',
  'GIT_OPTIONAL_LOCKS',
]);

export function isRiskyEnvName(name: string): boolean {
  return RISKY_NAMES.has(name) || (RISKY_PREFIX.test(name) && !HARMLESS.has(name));
}

const ASSIGNMENT_WORD = /^([A-Za-z_][A-Za-z0-9_]*)\+?=/;

/** The risky name a shell word assigns (`LD_PRELOAD=x.so`, `PATH+=:/tmp`), if any. */
export function riskyAssignment(word: string): string | undefined {
  const name = ASSIGNMENT_WORD.exec(word)?.[1];
  return name !== undefined && isRiskyEnvName(name) ? name : undefined;
}

/** One leading assignment whose value is literal: unquoted safe characters or '…' (nothing expands). */
const PLAIN_ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(?:[A-Za-z0-9_.,:/@%+=-]|'[^']*')*\s+/;

/**
 * The command line as rules and grants compare it: trimmed, without its leading plain
 * assignments (stops at the first risky, quoted-with-expansion or computed one).
 */
export function commandForMatching(line: string): string {
  let rest = line.trim();
  for (let m = PLAIN_ASSIGNMENT.exec(rest); m && !isRiskyEnvName(m[1]!); m = PLAIN_ASSIGNMENT.exec(rest))
    rest = rest.slice(m[0].length);
  return rest;
}
