import { describe, expect, it } from 'vitest';
import { lintHermesConfig, summarizeConfig } from '../../../src/providers/hermes/config-lint.js';

describe('config.yaml lint', () => {
  it('reads provider, model, base_url and supports_vision in either layout', () => {
    const nested = summarizeConfig('# c\nmodel:\n  default: "gpt-5"   # comment\n  provider: openai-api\n  base_url: https://x/v1\n  supports_vision: true\n');
    expect(nested).toEqual({ provider: { value: 'openai-api', line: 4 }, model: { value: 'gpt-5', line: 3 }, baseUrl: { value: 'https://x/v1', line: 5 }, supportsVision: true });
    expect(summarizeConfig('provider: nous\nmodel: hermes-5\n')).toMatchObject({ provider: { value: 'nous' }, model: { value: 'hermes-5' } });
  });

  it("reads any YAML layout (flow maps, quoted keys, anchors) and keeps each value's line", () => {
    expect(summarizeConfig('defaults: &d\n  provider: openai\nmodel:\n  <<: *d\n  "default": gpt-5\n')).toMatchObject({ model: { value: 'gpt-5', line: 5 } });
    expect(summarizeConfig('# c\n\nmodel: { provider: ollama-cloud, default: "gpt-oss:120b", supports_vision: false }\n')).toEqual({
      provider: { value: 'ollama-cloud', line: 3 },
      model: { value: 'gpt-oss:120b', line: 3 },
      supportsVision: false,
    });
    const flow = lintHermesConfig('# header\nmodel: {provider: ollama-cloud}\n');
    expect(flow.map((i) => [i.code, i.line])).toEqual([['ollama_cloud_base_url', 2]]);
  });

  it('broken YAML is one issue at its line (Hermes could not load it either)', () => {
    expect(lintHermesConfig('model:\n  provider: custom\n  - x\n')).toEqual([
      {
        code: 'yaml_syntax',
        line: 3,
        message: expect.stringMatching(/^config\.yaml is not valid YAML: .+\.$/),
        fix: 'Fix config.yaml at that line (or run `hermes setup` to write a new one).',
      },
    ]);
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
