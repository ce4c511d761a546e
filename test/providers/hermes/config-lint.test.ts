import { describe, expect, it } from 'vitest';
import { lintHermesConfig, parseYamlLite, summarizeConfig } from '../../../src/providers/hermes/config-lint.js';

describe('config.yaml lint', () => {
  it('reads provider, model, base_url and supports_vision in either layout', () => {
    const nested = summarizeConfig('# c\nmodel:\n  default: "gpt-5"   # comment\n  provider: openai-api\n  base_url: https://x/v1\n  supports_vision: true\n');
    expect(nested).toEqual({ provider: { value: 'openai-api', line: 4 }, model: { value: 'gpt-5', line: 3 }, baseUrl: { value: 'https://x/v1', line: 5 }, supportsVision: true });
    expect(summarizeConfig('provider: nous\nmodel: hermes-5\n')).toMatchObject({ provider: { value: 'nous' }, model: { value: 'hermes-5' } });
    expect(parseYamlLite('a:\n  - x\n  b: 1\n')).toEqual({ a: { b: { value: 1, line: 3 } } });
  });

  it('flags the ollama-cloud trap with the working form', () => {
    expect(lintHermesConfig('model:\n  provider: ollama-cloud\n  default: gpt-oss:120b\n')).toEqual([
      {
        code: 'ollama_cloud_base_url',
        line: 2,
        message: '`provider: ollama-cloud` resolves to the wrong base URL: every model call fails with HTTP 401.',
        fix: 'In config.yaml use `provider: custom` with `base_url: https://ollama.com/v1`.',
      },
    ]);
  });

  it('flags `openai` (the id is openai-api) and an Ollama base_url without /v1; the working form passes', () => {
    expect(lintHermesConfig('provider: openai\n').map((i) => i.code)).toEqual(['provider_id']);
    expect(lintHermesConfig('model:\n  provider: custom\n  base_url: https://ollama.com\n').map((i) => i.code)).toEqual(['ollama_base_url_path']);
    expect(lintHermesConfig('model:\n  provider: custom\n  base_url: https://ollama.com/v1\n  default: gpt-oss:120b\n')).toEqual([]);
    expect(lintHermesConfig('')).toEqual([]);
  });
});
