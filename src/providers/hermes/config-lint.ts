/**
 * Reading and linting a profile's config.yaml for the known traps. The file is parsed with the
 * `yaml` library (any valid YAML: flow maps, quoting, anchors); each value keeps the line it
 * is on, so lint messages point at it. The file is only ever read here, never written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { isScalar, LineCounter, parseDocument, type Document } from 'yaml';
import { HERMES_PROVIDERS, HOST_GATED_KEYS, hostDerivedKey, resolveHermesProvider } from './provider-ids.js';
import { isLoopbackHost } from '../../os/loopback.js';

export interface YamlScalar {
  value: string | number | boolean | null;
  /** 1-based line of the value in config.yaml. */
  line: number;
}

interface Parsed {
  doc: Document;
  lines: LineCounter;
}

function load(text: string): Parsed {
  const lines = new LineCounter();
  return { doc: parseDocument(text, { lineCounter: lines }), lines };
}

/** The scalar at `path` with its line, or undefined (missing, a map, a list). */
function get({ doc, lines }: Parsed, path: string[]): YamlScalar | undefined {
  const node = doc.getIn(path, true);
  if (!isScalar(node)) return undefined;
  const v = node.value;
  const value = v === null || typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? v : String(v);
  return { value, line: node.range ? lines.linePos(node.range[0]).line : 0 };
}

export interface HermesConfigSummary {
  provider?: YamlScalar;
  model?: YamlScalar;
  baseUrl?: YamlScalar;
  supportsVision?: boolean;
}

/** Accepts `provider:` / `model:` at top level or Hermes' `model: {default, provider, base_url}` map. */
export function summarizeConfig(text: string): HermesConfigSummary {
  const y = load(text);
  const out: HermesConfigSummary = {};
  const provider = get(y, ['model', 'provider']) ?? get(y, ['provider']);
  const model = get(y, ['model']) ?? get(y, ['model', 'default']) ?? get(y, ['model', 'name']);
  const baseUrl = get(y, ['model', 'base_url']) ?? get(y, ['base_url']);
  if (provider?.value) out.provider = provider;
  if (model?.value) out.model = model;
  if (baseUrl?.value) out.baseUrl = baseUrl;
  const vision = get(y, ['model', 'supports_vision']) ?? get(y, ['supports_vision']);
  if (vision) out.supportsVision = vision.value === true;
  return out;
}

export interface LintIssue {
  code: 'yaml_syntax' | 'provider_id' | 'provider_key' | 'base_url_ignored' | 'key_host' | 'ollama_base_url_path';
  line: number;
  message: string;
  fix: string;
}

/**
 * The environment Hermes reads keys from: the profile's own `.env` (Hermes loads it itself; Talaria
 * hands an agent no ambient credentials) and, to say where a key went missing, Talaria's own.
 */
export interface HermesKeys {
  /** Variables Hermes sees: its profile's .env (plus any the user configured Talaria to pass). */
  seen: Readonly<Record<string, string>>;
  /** Talaria's environment: a key only here never reaches Hermes. */
  ambient?: Readonly<Record<string, string>>;
  /** The .env file, for messages. */
  envFile: string;
}

const ACP_FALLBACK =
  'under ACP Hermes 0.18.2 then silently falls back to its default provider resolution (its model list says OpenRouter, state.db records no billing provider)';

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

/** A model server on this machine: loopback, or 0.0.0.0 used as a target (it reaches this machine). */
const isLoopback = (host: string) => isLoopbackHost(host) || host === '0.0.0.0';
const has = (env: Readonly<Record<string, string>> | undefined, k: string) =>
  typeof env?.[k] === 'string' && env[k]!.trim() !== '';

/** Anthropic-native base URLs, the only ones `provider: anthropic` honours (runtime_provider.py). */
const anthropicNative = (url: string, host: string) =>
  /(^|\.)anthropic\.com$|\.claude\.com$|\.azure\.com$/.test(host) || /\/anthropic\/?$|\/coding\/?$/.test(url);

/**
 * The traps seen in real installs, checked against a built Hermes 0.18.2 (specs/hermes-acp.md,
 * "Auth / setup failures"): a provider id Hermes does not have, a key it never reads, a base_url it
 * never applies, a key set for a host it is not sent to. With `keys`, the checks that depend on
 * the environment run too; without, only what config.yaml alone says.
 */
export function lintHermesConfig(text: string, keys?: HermesKeys): LintIssue[] {
  const issues: LintIssue[] = [];
  const bad = load(text).doc.errors[0];
  if (bad) {
    // Hermes cannot load it either; the other checks would read a guess.
    issues.push({
      code: 'yaml_syntax',
      line: bad.linePos?.[0].line ?? 0,
      message: `config.yaml is not valid YAML: ${bad.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}.`,
      fix: 'Fix config.yaml at that line (or run `hermes setup` to write a new one).',
    });
    return issues;
  }
  const c = summarizeConfig(text);
  const provider = typeof c.provider?.value === 'string' ? c.provider.value : undefined;
  const url = typeof c.baseUrl?.value === 'string' ? c.baseUrl.value : undefined;
  const host = url ? hostOf(url) : undefined;
  const resolved = resolveHermesProvider(provider);
  if (resolved && 'unknown' in resolved) {
    const openai = resolved.unknown === 'openai';
    issues.push({
      code: 'provider_id',
      line: c.provider!.line,
      message: openai
        ? `Hermes has no provider id \`openai\` (the OpenAI API provider is called \`openai-api\`): the CLI fails with "Unknown provider", and ${ACP_FALLBACK}.`
        : `Hermes 0.18.2 has no provider id \`${resolved.unknown}\`: the CLI fails with "Unknown provider", and ${ACP_FALLBACK}.`,
      fix: openai
        ? 'In config.yaml set `provider: openai-api` (or run `hermes model` to pick one).'
        : 'Run `hermes model` to pick a provider; for any OpenAI-compatible endpoint use `provider: custom` with its `base_url`.',
    });
  }
  const id = resolved && 'id' in resolved ? resolved.id : undefined;
  const spec = id ? HERMES_PROVIDERS[id] : undefined;
  if (
    id &&
    spec &&
    keys &&
    spec.keyEnv.length > 0 &&
    id !== 'openrouter' &&
    !spec.keyEnv.some((k) => has(keys.seen, k))
  ) {
    const names = spec.keyEnv.join(' or ');
    const ambient = spec.keyEnv.find((k) => has(keys.ambient, k));
    issues.push({
      code: 'provider_key',
      line: c.provider!.line,
      message:
        `\`provider: ${provider}\` takes its key only from ${names} (config.yaml's \`api_key\` is not read for it), and ${keys.envFile} does not set it` +
        `${ambient ? ` (${ambient} is in Talaria's environment, which is never handed to an agent)` : ''}: ${ACP_FALLBACK}.`,
      fix: `Add \`${spec.keyEnv[0]}=…\` to ${keys.envFile}${id === 'ollama-cloud' ? ', or use `provider: custom` with `base_url: https://ollama.com/v1` and `api_key`' : ''}.`,
    });
  }
  if (
    id &&
    spec?.baseEnv &&
    keys &&
    url &&
    id !== 'openrouter' &&
    has(keys.seen, spec.baseEnv) &&
    keys.seen[spec.baseEnv] !== url
  ) {
    issues.push({
      code: 'base_url_ignored',
      line: c.baseUrl!.line,
      message: `base_url ${url} never applies: ${spec.baseEnv} in ${keys.envFile} overrides it for \`provider: ${provider}\` (calls go to ${keys.seen[spec.baseEnv]}).`,
      fix: `Remove ${spec.baseEnv} from ${keys.envFile}, or set it to the URL you want.`,
    });
  }
  if (id === 'openrouter' && url && host && !/(^|\.)openrouter\.ai$/.test(host)) {
    issues.push({
      code: 'base_url_ignored',
      line: c.baseUrl!.line,
      message: `base_url ${url} never applies: an explicit \`provider: openrouter\` always calls https://openrouter.ai/api/v1.`,
      fix: 'For another endpoint use `provider: custom` with that `base_url` (and its `api_key`).',
    });
  }
  if (id === 'anthropic' && url && host && !anthropicNative(url, host)) {
    issues.push({
      code: 'base_url_ignored',
      line: c.baseUrl!.line,
      message: `base_url ${url} never applies: \`provider: anthropic\` only honours Anthropic-native URLs and calls https://api.anthropic.com instead.`,
      fix: 'Point base_url at an Anthropic-compatible endpoint (…/anthropic), or use `provider: custom` for an OpenAI-compatible one.',
    });
  }
  const customLike = id === 'custom' || (resolved === undefined && url !== undefined);
  const y = load(text);
  const apiKey = get(y, ['model', 'api_key']) ?? get(y, ['api_key']);
  if (customLike && keys && host && !isLoopback(host) && !apiKey?.value) {
    const derived = hostDerivedKey(host);
    const gated = HOST_GATED_KEYS.filter((g) => has(keys.seen, g.env));
    const sent = gated.some((g) => g.hosts.test(host)) || (derived !== undefined && has(keys.seen, derived));
    const wrong = gated.find((g) => !g.hosts.test(host));
    if (!sent && wrong) {
      issues.push({
        code: 'key_host',
        line: c.baseUrl!.line,
        message: `${wrong.env} is only sent to ${wrong.host}: calls to ${host} go without a key.`,
        fix: `Set \`api_key\` under \`model:\` in config.yaml${derived ? `, or ${derived} in ${keys.envFile}` : ''}.`,
      });
    }
  }
  if (url && /^https?:\/\/(www\.)?ollama\.com\/?$/.test(url)) {
    issues.push({
      code: 'ollama_base_url_path',
      line: c.baseUrl!.line,
      message: `base_url ${url} lacks the API path: Ollama Cloud's OpenAI-compatible endpoint is https://ollama.com/v1.`,
      fix: 'In config.yaml set `base_url: https://ollama.com/v1`.',
    });
  }
  return issues;
}

/** A profile's .env as Hermes reads it (KEY=VALUE lines; Node's own parser), or {} when there is none. */
export function readHermesEnv(home: string): Record<string, string> {
  try {
    return parseEnv(readFileSync(join(home, '.env'), 'utf8')) as Record<string, string>;
  } catch {
    return {};
  }
}

/** Lints a profile home: its config.yaml against its .env (and Talaria's environment, to say where a key is). */
export function lintHermesProfile(home: string, ambient?: Readonly<Record<string, string | undefined>>): LintIssue[] {
  const text = readHermesConfig(home);
  if (text === undefined) return [];
  const amb = Object.fromEntries(
    Object.entries(ambient ?? {}).filter((e): e is [string, string] => typeof e[1] === 'string'),
  );
  return lintHermesConfig(text, { seen: readHermesEnv(home), ambient: amb, envFile: join(home, '.env') });
}

/** A profile home's config.yaml text, or undefined when there is none. */
export function readHermesConfig(home: string): string | undefined {
  const f = join(home, 'config.yaml');
  if (!existsSync(f)) return undefined;
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return undefined;
  }
}
