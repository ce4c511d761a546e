/**
 * Turns a raw ACP `session/request_permission` params object into the PermissionSubject the
 * policy sees. Agents vary a lot: Hermes sends rawInput `{tool, arguments: {path}}` or
 * `{command}`; claude sends `{file_path}` / `{command}` with a "`cmd`" title; codex sends
 * `command: ["bash","-lc","…"]`; gemini sends only title, kind, locations and diff content;
 * several send little more than the id, so the caller may merge in the fields of the tool call
 * it already knows (`known`). Request fields win; paths are the union of both sources.
 */

import { homedir } from 'node:os';
import { isAbsolute, normalize, resolve } from 'node:path';
import type { PermissionSubject } from './types.js';
import { isRecord } from '../os/record.js';
import { quoteArg, shellLine } from '../os/shell.js';

/** Fields of an already-announced tool call (a thread ToolCallEntry fits). */
export interface KnownToolCall {
  title?: string;
  toolKind?: string;
  locations?: unknown;
  rawInput?: unknown;
  content?: unknown;
}

export interface DescribeOptions {
  /** Home directory for `~` expansion (default: os.homedir()). */
  homeDir?: string;
}

/** rawInput keys whose string value is a path. */
const PATH_KEYS = [
  'path',
  'file_path',
  'filePath',
  'filename',
  'fileName',
  'file',
  'abs_path',
  'absolute_path',
  'absolutePath',
  'notebook_path',
  'notebookPath',
  'target',
  'target_file',
  'targetFile',
  'destination',
  'dest',
  'source',
  'src',
  'old_path',
  'new_path',
  'oldPath',
  'newPath',
  'cwd',
  'dir',
  'directory',
  'dir_path',
  'workdir',
];
/** rawInput keys whose array value holds paths. */
const PATH_LIST_KEYS = ['paths', 'files', 'file_paths', 'filePaths'];
/** Wrappers some agents put the real arguments in (Hermes: `{tool, arguments}`). */
const NESTED_KEYS = ['arguments', 'args', 'input', 'params', 'parameters'];
const SHELLS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  '/bin/sh',
  '/bin/bash',
  '/bin/zsh',
  '/usr/bin/bash',
  '/usr/bin/zsh',
]);
const TITLE_PREFIX = /^\s*(?:terminal|bash|shell|sh|run|running|execute|exec|command|cmd)\s*:\s*(.+)$/is;

const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : undefined);

export function describeRequest(
  params: unknown,
  roots: string[],
  known?: KnownToolCall,
  opts: DescribeOptions = {},
): PermissionSubject {
  const p = isRecord(params) ? params : {};
  const tc = isRecord(p.toolCall) ? p.toolCall : {};
  const k: KnownToolCall = known ?? {};
  const home = opts.homeDir ?? homedir();
  const absRoots = roots.filter((r) => typeof r === 'string' && r !== '').map((r) => normalizePath(r, undefined, home));

  const toolKind = str(tc.kind) ?? str(k.toolKind);
  const title = str(tc.title) ?? str(k.title);
  const rawInputs = [tc.rawInput, k.rawInput];

  const found: string[] = [];
  for (const locs of [tc.locations, k.locations]) {
    if (Array.isArray(locs)) for (const l of locs) if (isRecord(l) && str(l.path)) found.push(l.path as string);
  }
  for (const content of [tc.content, k.content]) {
    if (Array.isArray(content))
      for (const c of content) if (isRecord(c) && c.type === 'diff' && str(c.path)) found.push(c.path as string);
  }
  for (const raw of rawInputs) collectRawPaths(raw, found, 0);

  const paths: string[] = [];
  for (const f of found) {
    const abs = normalizePath(f, absRoots[0], home);
    if (abs && !paths.includes(abs)) paths.push(abs);
  }

  let command: string | undefined;
  for (const raw of rawInputs) {
    command = commandFromRaw(raw);
    if (command) break;
  }
  if (!command) {
    const description = rawInputs.map((r) => (isRecord(r) ? str(r.description) : undefined)).find(Boolean);
    for (const t of [str(tc.title), str(k.title)]) {
      command = t ? commandFromTitle(t, toolKind, description) : undefined;
      if (command) break;
    }
  }

  const subject: PermissionSubject = {
    sessionId: typeof p.sessionId === 'string' ? p.sessionId : '',
    toolCallId: typeof tc.toolCallId === 'string' ? tc.toolCallId : '',
    paths,
    roots: absRoots,
  };
  if (toolKind) subject.toolKind = toolKind;
  if (title) subject.title = title;
  if (command) subject.command = command;
  return subject;
}

function collectRawPaths(raw: unknown, out: string[], depth: number): void {
  if (!isRecord(raw) || depth > 2) return;
  for (const key of PATH_KEYS) {
    const v = raw[key];
    if (looksLikePath(v)) out.push(v);
  }
  for (const key of PATH_LIST_KEYS) {
    const v = raw[key];
    if (Array.isArray(v)) for (const x of v) if (looksLikePath(x)) out.push(x);
  }
  // codex apply_patch: `changes: {"/abs/path": {…}}` — the keys are the paths.
  if (isRecord(raw.changes))
    for (const k of Object.keys(raw.changes)) if (looksLikePath(k) && /[\\/]/.test(k)) out.push(k);
  for (const key of NESTED_KEYS) collectRawPaths(raw[key], out, depth + 1);
}

/** Keys like `source`/`target` can hold code or names: accept only one-line, path-sized strings. */
function looksLikePath(v: unknown): v is string {
  if (typeof v !== 'string' || v.trim() === '' || v.length >= 4096 || /[\n\r\0]/.test(v)) return false;
  // URLs are not paths (file:// ones are).
  return !/^[a-z][a-z0-9+.-]+:\/\//i.test(v) || /^file:\/\//i.test(v);
}

/** Absolute, normalised; `~` expanded; `file://` URIs unwrapped; relative ones against `base`. */
export function normalizePath(p: string, base: string | undefined, home: string): string {
  let s = p.trim();
  if (/^file:\/\//i.test(s)) {
    try {
      s = decodeURIComponent(new URL(s).pathname);
    } catch {
      s = s.replace(/^file:\/\//i, '');
    }
  }
  if (s === '~') s = home;
  else if (s.startsWith('~/')) s = home + s.slice(1);
  if (isAbsolute(s)) return normalize(s);
  // No root to resolve against: keep it relative (normalised) rather than guess from process.cwd().
  return base ? resolve(base, s) : normalize(s);
}

function commandFromRaw(raw: unknown): string | undefined {
  if (!isRecord(raw)) return undefined;
  for (const key of ['command', 'cmd', 'commandLine', 'command_line', 'script']) {
    const v = raw[key];
    if (Array.isArray(v)) {
      const c = commandFromArray(v);
      if (c) return c;
    } else if (str(v)) {
      const args = Array.isArray(raw.args) ? raw.args.filter((a): a is string => typeof a === 'string') : [];
      return args.length > 0 ? [v as string, ...args.map(quoteArg)].join(' ') : (v as string).trim();
    }
  }
  for (const key of NESTED_KEYS) {
    if (isRecord(raw[key])) {
      const c = commandFromRaw(raw[key]);
      if (c) return c;
    }
  }
  return undefined;
}

/** `["bash","-lc","npm test"]` → `npm test`; other argv arrays are joined with quoting. */
export function commandFromArray(arr: unknown[]): string | undefined {
  const argv = arr.filter((a): a is string => typeof a === 'string');
  if (argv.length === 0) return undefined;
  const [first, flag, script] = argv;
  if (argv.length === 3 && first && SHELLS.has(first) && flag && /^-[a-z]*c[a-z]*$/.test(flag) && script)
    return script.trim();
  return shellLine(argv);
}

/**
 * From a title: "`npm test`" (claude), "terminal: rm -rf x", Hermes' "<description>: <command>";
 * for execute-kind calls with nothing else, the whole title (gemini's titles are the command).
 */
export function commandFromTitle(title: string, toolKind?: string, description?: string): string | undefined {
  const t = title.trim();
  const shellish = toolKind === undefined || toolKind === 'execute';
  const whole = /^`((?:[^`\\]|\\.)+)`$/s.exec(t);
  if (whole && shellish) return whole[1]!.replace(/\\`/g, '`').trim();
  const span = /`((?:[^`\\]|\\.)+)`/s.exec(t);
  if (span && toolKind === 'execute') return span[1]!.replace(/\\`/g, '`').trim();
  const pre = TITLE_PREFIX.exec(t);
  if (pre) return pre[1]!.trim();
  if (description && t.startsWith(description + ':')) {
    const rest = t.slice(description.length + 1).trim();
    if (rest) return rest;
  }
  return toolKind === 'execute' ? t : undefined;
}
