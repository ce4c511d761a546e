/**
 * Reading and linting a profile's config.yaml for the known traps. The file is parsed with the
 * `yaml` library (any valid YAML: flow maps, quoting, anchors); each value keeps the line it
 * is on, so lint messages point at it. The file is only ever read here, never written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isScalar, LineCounter, parseDocument, type Document } from 'yaml';

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
  code: 'yaml_syntax' | 'ollama_cloud_base_url' | 'provider_id' | 'ollama_base_url_path';
  line: number;
  message: string;
  fix: string;
}

/** The traps seen in real installs (specs/hermes-acp.md, "Auth / setup failures"). */
export function lintHermesConfig(text: string): LintIssue[] {
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
  if (provider === 'ollama-cloud') {
    issues.push({
      code: 'ollama_cloud_base_url',
      line: c.provider!.line,
      message: '`provider: ollama-cloud` resolves to the wrong base URL: every model call fails with HTTP 401.',
      fix: 'In config.yaml use `provider: custom` with `base_url: https://ollama.com/v1`.',
    });
  }
  if (provider === 'openai') {
    issues.push({
      code: 'provider_id',
      line: c.provider!.line,
      message: 'Hermes has no provider id `openai`; the OpenAI API provider is called `openai-api`.',
      fix: 'In config.yaml set `provider: openai-api` (or run `hermes model` to pick one).',
    });
  }
  const url = typeof c.baseUrl?.value === 'string' ? c.baseUrl.value : undefined;
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
