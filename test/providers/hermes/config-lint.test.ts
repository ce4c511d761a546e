import { describe, expect, it } from 'vitest';
import { lintHermesConfig, summarizeConfig } from '../../../src/providers/hermes/config-lint.js';

describe('config.yaml lint', () => {
  it('reads provider, model, base_url and supports_vision in either layout', () => {
    const nested = summarizeConfig(
      '# c\nmodel:\n  default: "gpt-5"   # comment\n  provider: openai-api\n  base_url: https://x/v1\n  supports_vision: true\n',
    );
    expect(nested).toEqual({
      provider: { value: 'openai-api', line: 4 },
      model: { value: 'gpt-5', line: 3 },
      baseUrl: { value: 'https://x/v1', line: 5 },
      supportsVision: true,
    });
    expect(summarizeConfig('provider: nous\nmodel: hermes-5\n')).toMatchObject({
      provider: { value: 'nous' },
      model: { value: 'hermes-5' },
    });
  });

  it("reads any YAML layout (flow maps, quoted keys, anchors) and keeps each value's line", () => {
    expect(summarizeConfig('defaults: &d\n  provider: openai\nmodel:\n  <<: *d\n  "default": gpt-5\n')).toMatchObject({
      model: { value: 'gpt-5', line: 5 },
    });
    expect(
      summarizeConfig('# c\n\nmodel: { provider: ollama-cloud, default: "gpt-oss:120b", supports_vision: false }\n'),
    ).toEqual({
      provider: { value: 'ollama-cloud', line: 3 },
      model: { value: 'gpt-oss:120b', line: 3 },
      supportsVision: false,
    });
    const flow = lintHermesConfig('# header\nmodel: {provider: ollama-cloud}\n', { seen: {}, envFile: '.env' });
    expect(flow.map((i) => [i.code, i.line])).toEqual([['provider_key', 2]]);
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

  // Checked against a built Hermes 0.18.2: ollama-cloud honours base_url; its key comes only from OLLAMA_API_KEY
  // (config.yaml's api_key is not read for it), and without one ACP falls back silently (the 401 claim was wrong).
  it('ollama-cloud without OLLAMA_API_KEY in the profile .env is the trap; with it, it works; a key only in the shell is said so', () => {
    const text = 'model:\n  provider: ollama-cloud\n  default: gpt-oss:120b\n';
    expect(lintHermesConfig(text, { seen: {}, envFile: '/h/.env' })).toEqual([
      {
        code: 'provider_key',
        line: 2,
        message: expect.stringMatching(
          /^`provider: ollama-cloud` takes its key only from OLLAMA_API_KEY .+ \/h\/\.env does not set it: under ACP .+ falls back/,
        ),
        fix: 'Add `OLLAMA_API_KEY=…` to /h/.env, or use `provider: custom` with `base_url: https://ollama.com/v1` and `api_key`.',
      },
    ]);
    expect(lintHermesConfig(text, { seen: { OLLAMA_API_KEY: 'k' }, envFile: '/h/.env' })).toEqual([]);
    const shell = lintHermesConfig(text, { seen: {}, ambient: { OLLAMA_API_KEY: 'k' }, envFile: '/h/.env' });
    expect(shell[0]!.message).toContain(
      "OLLAMA_API_KEY is in Talaria's environment, which is never handed to an agent",
    );
    // config.yaml alone cannot say: without keys the check does not run.
    expect(lintHermesConfig(text)).toEqual([]);
  });

  it('a base_url that never applies: an env override, explicit openrouter, a non-Anthropic URL for anthropic', () => {
    const env = { seen: { OLLAMA_API_KEY: 'k', OLLAMA_BASE_URL: 'https://other/v1' }, envFile: '/h/.env' };
    expect(
      lintHermesConfig('model:\n  provider: ollama-cloud\n  base_url: https://ollama.com/v1\n', env).map((i) => [
        i.code,
        i.line,
      ]),
    ).toEqual([['base_url_ignored', 3]]);
    const or = lintHermesConfig('model:\n  provider: openrouter\n  base_url: https://my.proxy/v1\n');
    expect(or.map((i) => i.code)).toEqual(['base_url_ignored']);
    expect(or[0]!.message).toContain('always calls https://openrouter.ai/api/v1');
    expect(
      lintHermesConfig('model:\n  provider: anthropic\n  base_url: https://openrouter.ai/api/v1\n').map((i) => i.code),
    ).toEqual(['base_url_ignored']);
    expect(lintHermesConfig('model:\n  provider: anthropic\n  base_url: https://proxy.example/anthropic\n')).toEqual(
      [],
    );
  });

  it('a key present for a host it does not gate: OPENAI_API_KEY is never sent to another custom endpoint', () => {
    const text = 'model:\n  provider: custom\n  base_url: https://api.deepseek.com/v1\n';
    const found = lintHermesConfig(text, { seen: { OPENAI_API_KEY: 'k' }, envFile: '/h/.env' });
    expect(found).toEqual([
      {
        code: 'key_host',
        line: 3,
        message: 'OPENAI_API_KEY is only sent to api.openai.com: calls to api.deepseek.com go without a key.',
        fix: 'Set `api_key` under `model:` in config.yaml, or DEEPSEEK_API_KEY in /h/.env.',
      },
    ]);
    // The host's own key (derived from its name), an api_key, or a loopback server: nothing to say.
    expect(
      lintHermesConfig(text, { seen: { OPENAI_API_KEY: 'k', DEEPSEEK_API_KEY: 'd' }, envFile: '/h/.env' }),
    ).toEqual([]);
    expect(lintHermesConfig(text + '  api_key: x\n', { seen: { OPENAI_API_KEY: 'k' }, envFile: '/h/.env' })).toEqual(
      [],
    );
    expect(
      lintHermesConfig('model:\n  provider: ollama\n  base_url: http://127.0.0.1:11434/v1\n', {
        seen: { OPENAI_API_KEY: 'k' },
        envFile: '/h/.env',
      }),
    ).toEqual([]);
  });

  it('flags `openai` (the id is openai-api) and an Ollama base_url without /v1; the working form passes', () => {
    expect(lintHermesConfig('provider: openai\n').map((i) => i.code)).toEqual(['provider_id']);
    expect(lintHermesConfig('provider: groq\n')[0]!.message).toMatch(/^Hermes 0\.18\.2 has no provider id `groq`/);
    // What people type that Hermes does know: ollama (an alias of custom), claude, google, codex.
    for (const p of ['ollama', 'claude', 'google', 'codex', 'openai-api', 'auto'])
      expect(lintHermesConfig(`provider: ${p}\n`)).toEqual([]);
    expect(lintHermesConfig('model:\n  provider: custom\n  base_url: https://ollama.com\n').map((i) => i.code)).toEqual(
      ['ollama_base_url_path'],
    );
    expect(
      lintHermesConfig('model:\n  provider: custom\n  base_url: https://ollama.com/v1\n  default: gpt-oss:120b\n'),
    ).toEqual([]);
    expect(lintHermesConfig('')).toEqual([]);
  });
});
