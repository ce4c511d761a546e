/**
 * Model catalog as Hermes advertises it: rows are only {modelId, name, description};
 * the description is the provider heading with " • current" on the current row.
 * HERMES_EMU_CATALOG=big gives a 50+-row live-like catalog with the duplicated
 * `custom:<p>:<model>` rows and bare names from a `providers:` block.
 */

export interface ModelRow {
  modelId: string;
  name: string;
  description: string;
}

interface Entry extends ModelRow {
  provider: string;
  model: string;
}

const LABELS: Record<string, string> = {
  custom: 'Custom endpoint',
  nous: 'Nous Portal',
  openrouter: 'OpenRouter',
  anthropic: 'Anthropic',
  'openai-api': 'OpenAI',
  'ollama-cloud': 'Ollama Cloud',
};

export const providerLabel = (p: string): string => LABELS[p] ?? p;

const NOUS = [
  'anthropic/claude-opus-5',
  'anthropic/claude-sonnet-5',
  'anthropic/claude-haiku-5',
  'openai/gpt-5.5',
  'openai/gpt-5.5-mini',
  'google/gemini-3-pro',
  'google/gemini-3-flash',
  'moonshotai/kimi-k2.7',
  'qwen/qwen3.5-coder',
  'deepseek/deepseek-v4',
  'x-ai/grok-5',
  'nousresearch/hermes-5-405b',
  'nousresearch/hermes-5-70b',
  'meta-llama/llama-5-70b',
  'mistralai/devstral-2',
  'z-ai/glm-5',
  'minimax/minimax-m3',
  'cohere/command-a-2',
  'amazon/nova-pro-2',
  'microsoft/phi-5',
];
const OPENROUTER = [
  'anthropic/claude-opus-5',
  'anthropic/claude-sonnet-5',
  'openai/gpt-5.5',
  'openai/o5-mini',
  'google/gemini-3-pro',
  'moonshotai/kimi-k2.7',
  'qwen/qwen3.5-235b',
  'deepseek/deepseek-v4',
  'deepseek/deepseek-r2',
  'x-ai/grok-5',
  'mistralai/mistral-large-3',
  'minimax/minimax-m3',
  'z-ai/glm-5',
  'openrouter/auto',
  'google/gemma-4-27b',
  'qwen/qwen3.5-coder',
  'nvidia/nemotron-ultra-2',
  'ai21/jamba-2',
];
/** Providers from a `providers:` block: bare names, listed again as `custom:<p>:<model>`. */
const BLOCK: Record<string, string[]> = {
  'ollama-launch': ['gpt-oss:20b', 'gpt-oss:120b', 'qwen3:32b', 'llama3.3:70b'],
  lmstudio: ['qwen3-coder-30b', 'devstral-small-2'],
};
const CUSTOM = ['kimi-k2.7-code', 'glm-5-air'];

function bigEntries(): Entry[] {
  const rows: Entry[] = [];
  const add = (provider: string, model: string, name: string, modelId = `${provider}:${model}`, heading = provider) =>
    rows.push({ provider, model, name, modelId, description: `Provider: ${providerLabel(heading)}` });
  for (const m of NOUS) add('nous', m, `Nous Portal · ${m}`);
  for (const m of OPENROUTER) add('openrouter', m, `OpenRouter · ${m}`);
  for (const [p, models] of Object.entries(BLOCK)) for (const m of models) add(p, m, m);
  for (const [p, models] of Object.entries(BLOCK)) for (const m of models) add(p, m, m, `custom:${p}:${m}`, 'custom');
  for (const m of CUSTOM) add('custom', m, m);
  return rows;
}

export interface Catalog {
  availableModels: ModelRow[];
  currentModelId: string;
}

/**
 * `provider: custom` lists what its endpoint's GET /v1/models returns (`endpointModels`);
 * the current model is always a row, inserted first when the endpoint does not list it.
 */
export function buildCatalog(provider: string, model: string, big: boolean, endpointModels: string[] = []): Catalog {
  const currentModelId = `${provider}:${model}`;
  const rows = big ? bigEntries() : [];
  if (!big && provider === 'custom') {
    for (const m of endpointModels)
      rows.push({
        provider,
        model: m,
        name: m,
        modelId: `custom:${m}`,
        description: `Provider: ${providerLabel(provider)}`,
      });
  }
  if (!rows.some((r) => r.modelId === currentModelId)) {
    rows.unshift({
      provider,
      model,
      name: model,
      modelId: currentModelId,
      description: `Provider: ${providerLabel(provider)}`,
    });
  }
  return {
    availableModels: rows.map((r) => ({
      description: r.modelId === currentModelId ? `${r.description} • current` : r.description,
      modelId: r.modelId,
      name: r.name,
    })),
    currentModelId,
  };
}

export interface ModelChoice {
  provider: string;
  model: string;
  /** False when the id names nothing in the catalog (0.21 answers -32602 then). */
  known: boolean;
}

/** Provider names `provider:model` may start with (hermes_cli.models._KNOWN_PROVIDER_NAMES, a subset). */
const KNOWN_PROVIDERS = new Set([
  'custom',
  'nous',
  'openrouter',
  'anthropic',
  'openai-api',
  'openai-codex',
  'ollama-cloud',
  'gemini',
  'xai',
  'kimi-coding',
  'minimax',
  'copilot',
  'deepseek',
  'zai',
  'huggingface',
  ...Object.keys(BLOCK),
]);

/**
 * Resolve a `session/set_model` id like parse_model_input: catalog rows first; the colon
 * splits only after a KNOWN provider (`custom:name:model` names a custom provider), so an
 * unknown `a:b` becomes the model name on the current provider.
 */
export function resolveModel(
  modelId: string,
  current: { provider: string; model: string },
  big: boolean,
  endpointModels: string[] = [],
): ModelChoice {
  const id = modelId.trim();
  const all = big ? bigEntries() : [];
  if (current.provider === 'custom')
    for (const m of endpointModels)
      all.push({ provider: 'custom', model: m, name: m, description: '', modelId: `custom:${m}` });
  all.push({
    provider: current.provider,
    model: current.model,
    name: '',
    description: '',
    modelId: `${current.provider}:${current.model}`,
  });
  const hit = all.find((r) => r.modelId === id);
  if (hit) return { provider: hit.provider, model: hit.model, known: true };
  const i = id.indexOf(':');
  const head = i > 0 ? id.slice(0, i).trim().toLowerCase() : '';
  const rest = i > 0 ? id.slice(i + 1).trim() : '';
  if (head && rest && KNOWN_PROVIDERS.has(head)) {
    const j = rest.indexOf(':');
    if (head === 'custom' && j > 0)
      return { provider: `custom:${rest.slice(0, j)}`, model: rest.slice(j + 1), known: false };
    return { provider: head, model: rest, known: false };
  }
  return { provider: current.provider, model: id, known: false };
}
