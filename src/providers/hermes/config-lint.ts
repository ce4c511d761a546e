/**
 * Reading and linting a profile's config.yaml for the known traps. Hermes' config is YAML; we
 * only need a few keys, so a small indentation parser (maps and scalars, with line numbers)
 * is enough. The file is only ever read here, never written.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface YamlScalar {
  value: string | number | boolean | null;
  line: number;
}
export type YamlMap = { [k: string]: YamlScalar | YamlMap };

function scalar(raw: string): YamlScalar['value'] {
  const v = raw.replace(/\s+#.*$/, '').trim();
  if (v === '' || v === '~' || v === 'null') return null;
  if (v === 'true') return true;
  if (v === 'false') return false;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  const q = /^(['"])(.*)\1$/.exec(v);
  return q ? (q[2] ?? '') : v;
}

/** Maps and scalars by indentation; lists and anything fancier are skipped. */
export function parseYamlLite(text: string): YamlMap {
  const root: YamlMap = {};
  const stack: { indent: number; node: YamlMap }[] = [{ indent: -1, node: root }];
  text.split(/\r?\n/).forEach((line, i) => {
    const t = line.trim();
    if (!t || t.startsWith('#') || t.startsWith('-')) return;
    const m = /^(\s*)([^:#]+?):(?:\s+(.*)|\s*)$/.exec(line);
    if (!m) return;
    const indent = (m[1] ?? '').length;
    while (stack.length > 1 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    const parent = stack[stack.length - 1]!.node;
    const key = (m[2] ?? '').trim().replace(/^(['"])(.*)\1$/, '$2');
    const rest = (m[3] ?? '').trim();
    if (rest === '' || rest.startsWith('#')) {
      const child: YamlMap = {};
      parent[key] = child;
      stack.push({ indent, node: child });
    } else parent[key] = { value: scalar(rest), line: i + 1 };
  });
  return root;
}

const isScalar = (v: unknown): v is YamlScalar => typeof v === 'object' && v !== null && 'line' in v && 'value' in v;

function get(map: YamlMap, path: string[]): YamlScalar | undefined {
  let cur: YamlMap | YamlScalar | undefined = map;
  for (const k of path) {
    if (!cur || isScalar(cur)) return undefined;
    cur = (cur as YamlMap)[k];
  }
  return isScalar(cur) ? cur : undefined;
}

export interface HermesConfigSummary {
  provider?: YamlScalar;
  model?: YamlScalar;
  baseUrl?: YamlScalar;
  supportsVision?: boolean;
}

/** Accepts `provider:` / `model:` at top level or Hermes' `model: {default, provider, base_url}` map. */
export function summarizeConfig(text: string): HermesConfigSummary {
  const y = parseYamlLite(text);
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
  code: 'ollama_cloud_base_url' | 'provider_id' | 'ollama_base_url_path';
  line: number;
  message: string;
  fix: string;
}

/** The traps seen in real installs (specs/hermes-acp.md, "Auth / setup failures"). */
export function lintHermesConfig(text: string): LintIssue[] {
  const c = summarizeConfig(text);
  const issues: LintIssue[] = [];
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
