/**
 * Hermes homes, config.yaml and the emulator's env switches.
 * Mirrors Hermes: data lives in $HERMES_HOME (default ~/.hermes); `-p NAME` selects
 * <root>/profiles/NAME. config.yaml is read with a tiny indentation-based parser.
 */
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';

export const PROFILE_RE = /^[a-z0-9][a-z0-9_-]{0,63}$/;

/** The default root, even when HERMES_HOME already points into a profile. */
export function hermesRoot(env: NodeJS.ProcessEnv = process.env): string {
  const home = env.HERMES_HOME && env.HERMES_HOME.trim() ? env.HERMES_HOME : join(homedir(), '.hermes');
  const parent = dirname(home);
  return basename(parent) === 'profiles' ? dirname(parent) : home;
}

export function profileHome(root: string, name: string): string {
  return name === 'default' ? root : join(root, 'profiles', name);
}

export interface HermesConfig {
  provider: string | null;
  model: string;
  baseUrl: string;
  supportsVision: boolean;
  /** `compression.in_place` (default true): false makes a compression rotate the session row (rotate.ts). */
  compressionInPlace: boolean;
}

type Yaml = { [k: string]: YamlValue };
type YamlValue = string | number | boolean | null | Yaml;

function scalar(raw: string): YamlValue {
  const v = raw.replace(/\s+#.*$/, '').trim();
  if (v === '' || v === '~' || v === 'null') return null;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  const q = /^(['"])(.*)\1$/.exec(v);
  return q ? (q[2] ?? '') : v;
}

/** Maps and scalars by indentation; list items and anything fancier are skipped. */
export function parseYamlLite(text: string): Yaml {
  const root: Yaml = {};
  const stack: Array<{ indent: number; node: Yaml }> = [{ indent: -1, node: root }];
  for (const line of text.split(/\r?\n/)) {
    if (!line.trim() || line.trim().startsWith('#') || line.trim().startsWith('-')) continue;
    const m = /^(\s*)([^:#]+?):(.*)$/.exec(line);
    if (!m) continue;
    const indent = (m[1] ?? '').length;
    while (stack.length > 1 && (stack[stack.length - 1]?.indent ?? -1) >= indent) stack.pop();
    const parent = stack[stack.length - 1]!.node;
    const key = (m[2] ?? '').trim();
    const rest = (m[3] ?? '').trim();
    if (rest === '' || rest.startsWith('#')) {
      const child: Yaml = {};
      parent[key] = child;
      stack.push({ indent, node: child });
    } else {
      parent[key] = scalar(rest);
    }
  }
  return root;
}

function str(v: YamlValue | undefined): string | null {
  return typeof v === 'string' && v.trim() ? v.trim() : null;
}

/** `compression: {in_place: false}` (flow style, as the research profile wrote it) or the block form. */
function inPlace(v: YamlValue | undefined): boolean {
  if (v && typeof v === 'object') return v.in_place !== false;
  return !(typeof v === 'string' && /\bin_place\s*:\s*false\b/.test(v));
}

/** Accepts `provider:`/`model:` at top level or Hermes' `model: {default, provider, ...}` map. */
export function readConfig(home: string): HermesConfig {
  const file = join(home, 'config.yaml');
  const y = existsSync(file) ? parseYamlLite(readFileSync(file, 'utf8')) : {};
  const m = y.model;
  const mm: Yaml = m && typeof m === 'object' ? m : {};
  const provider = str(mm.provider) ?? str(y.provider);
  const model = (typeof m === 'string' ? str(m) : null) ?? str(mm.default) ?? str(mm.name) ?? 'fake-model';
  const baseUrl = str(mm.base_url) ?? str(y.base_url) ?? '';
  return {
    provider,
    model,
    baseUrl,
    supportsVision: mm.supports_vision === true || y.supports_vision === true,
    compressionInPlace: inPlace(y.compression),
  };
}

/**
 * Env switches for tests:
 * HERMES_EMU_VERSION=0.21 (newer behaviour) · HERMES_EMU_CATALOG=big (50+ model rows) ·
 * HERMES_EMU_ENDPOINT_MODELS (what the custom endpoint's GET /v1/models lists; default
 * "fake-model,other-model", as the research fake model) ·
 * HERMES_EMU_DELAY_MS (between streamed words, default 2) · HERMES_EMU_SLOW_MS (SLOW turn, 400) ·
 * HERMES_EMU_UPDATES_FIRST=1 (commands/usage updates before the session response) ·
 * HERMES_EMU_PERMISSION_TIMEOUT_MS (default 60000, then deny) · HERMES_EMU_LIST_PAGE (50) ·
 * HERMES_EMU_TITLE (fixed generated title, e.g. "Fake title") · HERMES_EMU_TITLE_DELAY_MS (20) ·
 * HERMES_EMU_AUTH_ERROR (the provider's 401 message, shown verbatim) ·
 * HERMES_EMU_OVERFLOW (default `real`: an overflow poisons the session as in real Hermes 0.18.2:
 * every later prompt overflows again, /compact cannot help, only /reset or a fresh session
 * recovers, a load in a new process overflows again, a learned limit under 64K breaks later
 * compressions; `lenient`: the failed message is still merged into the next prompt, but an
 * OVERFLOW in it no longer counts, so that prompt is answered) ·
 * HERMES_EMU_COMPRESS_PAUSE_MS (pause between compression attempts; real Hermes sleeps 2000) ·
 * cold start (default 0; HERMES_EMU_COLD=real sets all four to the medians measured on real
 * 0.18.2, docs/hermes.md "Timings"): HERMES_EMU_INIT_DELAY_MS (process start → stdin read, so
 * → the initialize reply), HERMES_EMU_NEW_DELAY_MS (the first session/new, load, resume or fork
 * of the process: the first agent build), HERMES_EMU_NEXT_NEW_DELAY_MS (every later one),
 * HERMES_EMU_FIRST_PROMPT_DELAY_MS (before the first model call of the process) ·
 * HERMES_EMU_TURN_DELAY_MS (before every prompt's answer, default 0: the model's time to its first
 * token; real later plain turns take 0.2–0.6 s) ·
 * HERMES_EMU_LOG=path (append every received frame, fixture line format) ·
 * HERMES_EMU_PRICE="IN,OUT" (USD per million input/output tokens: state.db rows get
 * cost_status 'estimated'; default: no price, as a custom endpoint gets — cost_status 'unknown',
 * estimated_cost_usd 0.0).
 */
export interface Settings {
  v21: boolean;
  version: string;
  bigCatalog: boolean;
  delayMs: number;
  slowMs: number;
  updatesFirst: boolean;
  permissionTimeoutMs: number;
  listPage: number;
  title: string | null;
  titleDelayMs: number;
  logPath: string | null;
  endpointModels: string[];
  authError: string;
  overflowReal: boolean;
  compressPauseMs: number;
  initDelayMs: number;
  newDelayMs: number;
  nextNewDelayMs: number;
  firstPromptDelayMs: number;
  turnDelayMs: number;
  /** USD per million input / output tokens, or null: the route has no known price. */
  price: { input: number; output: number } | null;
}

/** Medians of the real 0.18.2 runs on a loaded 2-core host (research recordings s1–s8). */
export const REAL_COLD = { initDelayMs: 8937, newDelayMs: 6914, nextNewDelayMs: 937, firstPromptDelayMs: 12700 };

/** The research fake model's 401 body, which Hermes shows verbatim (no masking). */
export const AUTH_ERROR =
  'Incorrect API key provided: sk-local-fake-key. You can find your API key at https://platform.openai.com/account/api-keys.';

function num(v: string | undefined, dflt: number): number {
  const n = v === undefined || v === '' ? NaN : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : dflt;
}

function readPrice(v: string | undefined): Settings['price'] {
  const [i, o] = (v ?? '').split(',').map((x) => Number(x.trim()));
  return i !== undefined && o !== undefined && Number.isFinite(i) && Number.isFinite(o)
    ? { input: i, output: o }
    : null;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const v21 = (env.HERMES_EMU_VERSION ?? '').startsWith('0.21');
  const cold =
    env.HERMES_EMU_COLD === 'real'
      ? REAL_COLD
      : { initDelayMs: 0, newDelayMs: 0, nextNewDelayMs: 0, firstPromptDelayMs: 0 };
  const delayMs = num(env.HERMES_EMU_DELAY_MS, 2);
  return {
    v21,
    version: v21 ? '0.21.0' : '0.18.2',
    bigCatalog: env.HERMES_EMU_CATALOG === 'big',
    delayMs,
    slowMs: num(env.HERMES_EMU_SLOW_MS, 400),
    updatesFirst: env.HERMES_EMU_UPDATES_FIRST === '1',
    permissionTimeoutMs: num(env.HERMES_EMU_PERMISSION_TIMEOUT_MS, 60_000),
    listPage: Math.max(1, num(env.HERMES_EMU_LIST_PAGE, 50)),
    title: env.HERMES_EMU_TITLE ?? null,
    titleDelayMs: num(env.HERMES_EMU_TITLE_DELAY_MS, 20),
    logPath: env.HERMES_EMU_LOG ?? null,
    endpointModels: (env.HERMES_EMU_ENDPOINT_MODELS ?? 'fake-model,other-model')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean),
    authError: env.HERMES_EMU_AUTH_ERROR || AUTH_ERROR,
    overflowReal: env.HERMES_EMU_OVERFLOW !== 'lenient',
    compressPauseMs: num(env.HERMES_EMU_COMPRESS_PAUSE_MS, delayMs),
    initDelayMs: num(env.HERMES_EMU_INIT_DELAY_MS, cold.initDelayMs),
    newDelayMs: num(env.HERMES_EMU_NEW_DELAY_MS, cold.newDelayMs),
    nextNewDelayMs: num(env.HERMES_EMU_NEXT_NEW_DELAY_MS, cold.nextNewDelayMs),
    firstPromptDelayMs: num(env.HERMES_EMU_FIRST_PROMPT_DELAY_MS, cold.firstPromptDelayMs),
    turnDelayMs: num(env.HERMES_EMU_TURN_DELAY_MS, 0),
    price: readPrice(env.HERMES_EMU_PRICE),
  };
}

export const NO_PROVIDER =
  'No LLM provider configured. Run `hermes model` to select a provider, or run `hermes setup` for first-time configuration.';
