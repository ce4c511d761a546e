/**
 * Hermes 0.18.2's model providers as its code resolves them (hermes_cli/auth.py PROVIDER_REGISTRY
 * and `_PROVIDER_ALIASES`, read off a built 0.18.2): which ids exist, which environment variable
 * carries each one's key, and which one overrides its base URL. config-lint.ts uses it to say
 * what Hermes will really do with a config.yaml; a newer Hermes may know more ids, so an id not
 * listed here is reported as unknown *to 0.18.2*, never as wrong.
 */

export interface HermesProviderSpec {
  /** Variables Hermes takes the key from, in order (none: OAuth, a local server, an external process). */
  keyEnv: readonly string[];
  /** The variable that overrides the base URL (it wins over config.yaml's `base_url`). */
  baseEnv?: string;
}

const key = (keyEnv: string[], baseEnv?: string): HermesProviderSpec => (baseEnv ? { keyEnv, baseEnv } : { keyEnv });

/** PROVIDER_REGISTRY of 0.18.2 (44 ids), plus `custom` and `openrouter`, which it handles outside the registry. */
export const HERMES_PROVIDERS: Readonly<Record<string, HermesProviderSpec>> = {
  custom: key([]),
  openrouter: key(['OPENROUTER_API_KEY'], 'OPENROUTER_BASE_URL'),
  nous: key([]),
  'openai-codex': key([]),
  'openai-api': key(['OPENAI_API_KEY'], 'OPENAI_BASE_URL'),
  'xai-oauth': key([]),
  'qwen-oauth': key([]),
  lmstudio: key(['LM_API_KEY'], 'LM_BASE_URL'),
  copilot: key(['COPILOT_GITHUB_TOKEN', 'GH_TOKEN', 'GITHUB_TOKEN'], 'COPILOT_API_BASE_URL'),
  'copilot-acp': key([], 'COPILOT_ACP_BASE_URL'),
  gemini: key(['GOOGLE_API_KEY', 'GEMINI_API_KEY'], 'GEMINI_BASE_URL'),
  zai: key(['GLM_API_KEY', 'ZAI_API_KEY', 'Z_AI_API_KEY'], 'GLM_BASE_URL'),
  'kimi-coding': key(['KIMI_API_KEY', 'KIMI_CODING_API_KEY'], 'KIMI_BASE_URL'),
  'kimi-coding-cn': key(['KIMI_CN_API_KEY']),
  stepfun: key(['STEPFUN_API_KEY'], 'STEPFUN_BASE_URL'),
  arcee: key(['ARCEEAI_API_KEY'], 'ARCEE_BASE_URL'),
  gmi: key(['GMI_API_KEY'], 'GMI_BASE_URL'),
  minimax: key(['MINIMAX_API_KEY'], 'MINIMAX_BASE_URL'),
  'minimax-oauth': key([]),
  anthropic: key(['ANTHROPIC_API_KEY', 'ANTHROPIC_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'], 'ANTHROPIC_BASE_URL'),
  alibaba: key(['DASHSCOPE_API_KEY'], 'DASHSCOPE_BASE_URL'),
  'alibaba-coding-plan': key(['ALIBABA_CODING_PLAN_API_KEY', 'DASHSCOPE_API_KEY'], 'ALIBABA_CODING_PLAN_BASE_URL'),
  'minimax-cn': key(['MINIMAX_CN_API_KEY'], 'MINIMAX_CN_BASE_URL'),
  deepseek: key(['DEEPSEEK_API_KEY'], 'DEEPSEEK_BASE_URL'),
  xai: key(['XAI_API_KEY'], 'XAI_BASE_URL'),
  nvidia: key(['NVIDIA_API_KEY'], 'NVIDIA_BASE_URL'),
  'opencode-zen': key(['OPENCODE_ZEN_API_KEY'], 'OPENCODE_ZEN_BASE_URL'),
  'opencode-go': key(['OPENCODE_GO_API_KEY'], 'OPENCODE_GO_BASE_URL'),
  kilocode: key(['KILOCODE_API_KEY'], 'KILOCODE_BASE_URL'),
  huggingface: key(['HF_TOKEN'], 'HF_BASE_URL'),
  xiaomi: key(['XIAOMI_API_KEY'], 'XIAOMI_BASE_URL'),
  'tencent-tokenhub': key(['TOKENHUB_API_KEY'], 'TOKENHUB_BASE_URL'),
  'ollama-cloud': key(['OLLAMA_API_KEY'], 'OLLAMA_BASE_URL'),
  bedrock: key([], 'BEDROCK_BASE_URL'),
  'azure-foundry': key(['AZURE_FOUNDRY_API_KEY'], 'AZURE_FOUNDRY_BASE_URL'),
  deepinfra: key(['DEEPINFRA_API_KEY'], 'DEEPINFRA_BASE_URL'),
  'deep-infra': key(['DEEPINFRA_API_KEY'], 'DEEPINFRA_BASE_URL'),
  'deepinfra-ai': key(['DEEPINFRA_API_KEY'], 'DEEPINFRA_BASE_URL'),
  fireworks: key(['FIREWORKS_API_KEY']),
  'fireworks-ai': key(['FIREWORKS_API_KEY']),
  fw: key(['FIREWORKS_API_KEY']),
  novita: key(['NOVITA_API_KEY'], 'NOVITA_BASE_URL'),
  'novita-ai': key(['NOVITA_API_KEY'], 'NOVITA_BASE_URL'),
  novitaai: key(['NOVITA_API_KEY'], 'NOVITA_BASE_URL'),
  upstage: key(['UPSTAGE_API_KEY'], 'UPSTAGE_BASE_URL'),
  solar: key(['UPSTAGE_API_KEY'], 'UPSTAGE_BASE_URL'),
};

/** `_PROVIDER_ALIASES` of 0.18.2: what people type → the id Hermes uses. */
export const HERMES_PROVIDER_ALIASES: Readonly<Record<string, string>> = {
  glm: 'zai',
  'z-ai': 'zai',
  'z.ai': 'zai',
  zhipu: 'zai',
  google: 'gemini',
  'google-gemini': 'gemini',
  'google-ai-studio': 'gemini',
  'x-ai': 'xai',
  'x.ai': 'xai',
  grok: 'xai',
  'x-ai-oauth': 'xai-oauth',
  'grok-oauth': 'xai-oauth',
  'xai-grok-oauth': 'xai-oauth',
  kimi: 'kimi-coding',
  'kimi-for-coding': 'kimi-coding',
  moonshot: 'kimi-coding',
  'kimi-cn': 'kimi-coding-cn',
  'moonshot-cn': 'kimi-coding-cn',
  step: 'stepfun',
  'stepfun-coding-plan': 'stepfun',
  'arcee-ai': 'arcee',
  arceeai: 'arcee',
  'gmi-cloud': 'gmi',
  gmicloud: 'gmi',
  'minimax-china': 'minimax-cn',
  minimax_cn: 'minimax-cn',
  'minimax-portal': 'minimax-oauth',
  'minimax-global': 'minimax-oauth',
  minimax_oauth: 'minimax-oauth',
  alibaba_coding: 'alibaba-coding-plan',
  'alibaba-coding': 'alibaba-coding-plan',
  alibaba_coding_plan: 'alibaba-coding-plan',
  claude: 'anthropic',
  'claude-code': 'anthropic',
  github: 'copilot',
  'github-copilot': 'copilot',
  'github-models': 'copilot',
  'github-model': 'copilot',
  'github-copilot-acp': 'copilot-acp',
  'copilot-acp-agent': 'copilot-acp',
  opencode: 'opencode-zen',
  zen: 'opencode-zen',
  'qwen-portal': 'qwen-oauth',
  'qwen-cli': 'qwen-oauth',
  hf: 'huggingface',
  'hugging-face': 'huggingface',
  'huggingface-hub': 'huggingface',
  mimo: 'xiaomi',
  'xiaomi-mimo': 'xiaomi',
  tencent: 'tencent-tokenhub',
  tokenhub: 'tencent-tokenhub',
  'tencent-cloud': 'tencent-tokenhub',
  tencentmaas: 'tencent-tokenhub',
  aws: 'bedrock',
  'aws-bedrock': 'bedrock',
  'amazon-bedrock': 'bedrock',
  amazon: 'bedrock',
  go: 'opencode-go',
  'opencode-go-sub': 'opencode-go',
  kilo: 'kilocode',
  'kilo-code': 'kilocode',
  'kilo-gateway': 'kilocode',
  'lm-studio': 'lmstudio',
  lm_studio: 'lmstudio',
  codex: 'openai-codex',
  azure: 'azure-foundry',
  // Local servers go through the generic custom provider.
  ollama: 'custom',
  local: 'custom',
  vllm: 'custom',
  llamacpp: 'custom',
  'llama.cpp': 'custom',
  'llama-cpp': 'custom',
  ollama_cloud: 'ollama-cloud',
};

/** The id Hermes 0.18.2 resolves `provider` to (`auto`/empty: undefined), or `unknown`. */
export function resolveHermesProvider(provider: string | undefined): { id: string } | { unknown: string } | undefined {
  const p = (provider ?? '').trim().toLowerCase();
  if (p === '' || p === 'auto') return undefined;
  const id = HERMES_PROVIDER_ALIASES[p] ?? p;
  return id in HERMES_PROVIDERS ? { id } : { unknown: p };
}

/** Hosts that get a key only they are sent (runtime_provider.py: OPENAI/OLLAMA/OPENROUTER keys are host-gated). */
export const HOST_GATED_KEYS: readonly { env: string; hosts: RegExp; host: string }[] = [
  { env: 'OPENAI_API_KEY', hosts: /(^|\.)openai\.com$|(^|\.)openai\.azure\.com$/, host: 'api.openai.com' },
  { env: 'OLLAMA_API_KEY', hosts: /(^|\.)ollama\.com$/, host: 'ollama.com' },
  { env: 'OPENROUTER_API_KEY', hosts: /(^|\.)openrouter\.ai$/, host: 'openrouter.ai' },
];

/**
 * `<VENDOR>_API_KEY` as Hermes derives it from a custom endpoint's host (`api.deepseek.com` →
 * DEEPSEEK_API_KEY); undefined for IPs, loopback, single labels and the host-gated three.
 */
export function hostDerivedKey(host: string): string | undefined {
  const h = host.toLowerCase();
  const labels = h.split('.').filter(Boolean);
  if (labels.length === 0 || /^\d/.test(labels[labels.length - 1]!) || h === 'localhost' || h.includes(':'))
    return undefined;
  while (labels.length > 0 && (labels[0] === 'api' || labels[0] === 'www')) labels.shift();
  if (labels.length < 2) return undefined;
  const vendor = labels[labels.length - 2]!.replace(/[^a-z0-9]/g, '_').toUpperCase();
  if (!/^[A-Z]/.test(vendor) || ['OPENAI', 'OPENROUTER', 'OLLAMA'].includes(vendor)) return undefined;
  return `${vendor}_API_KEY`;
}
