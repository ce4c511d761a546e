import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hermesModelRows, parseRow, splitModelId } from '../../../src/providers/hermes/catalog.js';
import { normalizeCatalog, planSwitch, type CatalogOption, type RawModelRow } from '../../../src/session/catalog.js';
import type { WireLogLine } from '../../../src/protocol/types.js';

const strip = ({ raw: _raw, ...o }: CatalogOption) => o;

/** Every session/new|load|resume|fork result of a fixture that carries `models`. */
function modelResults(name: string): Record<string, unknown>[] {
  const path = fileURLToPath(new URL(`../../fixtures/hermes-0.18.2/${name}`, import.meta.url));
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WireLogLine);
  return lines
    .filter((l) => l.dir === 'agent->client' && l.msg.method === undefined)
    .map((l) => l.msg.result as Record<string, unknown> | undefined)
    .filter(
      (r): r is Record<string, unknown> => r !== undefined && r !== null && typeof r === 'object' && 'models' in r,
    );
}

describe('hermesModelRows on the recorded rows', () => {
  const results = ['main.ndjson', 'profile.ndjson', 'reload.ndjson', 'tools.ndjson'].flatMap(modelResults);

  it('finds the session/new, load, resume and fork results', () => {
    expect(results.length).toBe(6);
  });

  it.each(results.map((r, i) => [i, r] as const))('result %i → one Custom endpoint row', (_i, result) => {
    const c = normalizeCatalog(result, hermesModelRows);
    expect(c.model?.options.map(strip)).toEqual([
      { id: 'custom:fake-model', label: 'fake-model', group: 'Custom endpoint', providerId: 'custom', current: true },
    ]);
    expect(c.model?.currentId).toBe('custom:fake-model');
    expect(planSwitch(c, 'model', 'custom:fake-model')).toEqual({
      method: 'session/set_model',
      params: { modelId: 'custom:fake-model' },
    });
  });
});

describe('parseRow / splitModelId', () => {
  it.each([
    // modelId, name, description → label, group, providerId, marked current
    [
      'nous:anthropic/claude-opus-5',
      'Nous Portal · anthropic/claude-opus-5',
      'Provider: Nous Portal',
      'anthropic/claude-opus-5',
      'Nous Portal',
      'nous',
      false,
    ],
    [
      'nous:anthropic/claude-opus-5',
      'Nous Portal · anthropic/claude-opus-5',
      'Provider: Nous Portal • current',
      'anthropic/claude-opus-5',
      'Nous Portal',
      'nous',
      true,
    ],
    [
      'ollama-launch:gpt-oss:20b',
      'gpt-oss:20b',
      'Provider: Ollama launch',
      'gpt-oss:20b',
      'Ollama launch',
      'ollama-launch',
      false,
    ],
    ['custom:ollama-launch:m', 'm', 'Provider: Custom endpoint', 'm', 'Custom endpoint', 'ollama-launch', false],
    [
      'custom:ollama-launch:gpt-oss:20b',
      'gpt-oss:20b',
      'Provider: Custom endpoint',
      'gpt-oss:20b',
      'Custom endpoint',
      'ollama-launch',
      false,
    ],
    [
      'custom:kimi-k2.7-code',
      'kimi-k2.7-code',
      'Provider: Custom endpoint',
      'kimi-k2.7-code',
      'Custom endpoint',
      'custom',
      false,
    ],
    [
      'custom:gpt-oss:20b',
      'gpt-oss:20b',
      'Provider: Custom endpoint',
      'gpt-oss:20b',
      'Custom endpoint',
      'custom',
      false,
    ],
    [
      'custom:fake-model',
      'fake-model',
      'Provider: Custom endpoint • current',
      'fake-model',
      'Custom endpoint',
      'custom',
      true,
    ],
    // A name that merely contains the heading later is not a prefix: left alone.
    [
      'openrouter:x/Nous Portal · y',
      'x/Nous Portal · y',
      'Provider: Nous Portal',
      'x/Nous Portal · y',
      'Nous Portal',
      'openrouter',
      false,
    ],
    // A prefix for another heading is not stripped.
    [
      'openrouter:a/b',
      'OpenRouter · a/b',
      'Provider: Nous Portal',
      'OpenRouter · a/b',
      'Nous Portal',
      'openrouter',
      false,
    ],
    // Display name that is not the tail of modelId: fall back to the colon structure.
    [
      'openrouter:anthropic/claude-opus-5',
      'OpenRouter · Claude Opus 5',
      'Provider: OpenRouter',
      'Claude Opus 5',
      'OpenRouter',
      'openrouter',
      false,
    ],
    [
      'custom:lmstudio:qwen/qwen3-coder',
      'Qwen 3 Coder',
      'Provider: Custom endpoint',
      'Qwen 3 Coder',
      'Custom endpoint',
      'lmstudio',
      false,
    ],
    // No provider prefix at all, no name, no description.
    ['bare-model', '', '', 'bare-model', undefined, undefined, false],
    ['bare-model', 'Bare', null, 'Bare', undefined, undefined, false],
  ] as const)('%s / %j / %j', (modelId, name, description, label, group, providerId, marked) => {
    const p = parseRow({ modelId, name, description });
    expect([p.label, p.group, p.providerId, p.markedCurrent]).toEqual([label, group, providerId, marked]);
  });

  it('keeps a description that is not a provider heading', () => {
    expect(parseRow({ modelId: 'p:m', name: 'm', description: 'Fast and cheap • current' })).toEqual({
      label: 'm',
      model: 'm',
      description: 'Fast and cheap',
      providerId: 'p',
      markedCurrent: true,
    });
  });

  it.each([
    ['ollama-launch:gpt-oss:20b', 'gpt-oss:20b', { providerId: 'ollama-launch', model: 'gpt-oss:20b' }],
    ['custom:ollama-launch:m', 'm', { providerId: 'ollama-launch', model: 'm' }],
    ['custom:kimi-k2.7-code', 'kimi-k2.7-code', { providerId: 'custom', model: 'kimi-k2.7-code' }],
    ['custom:fake-model', 'fake-model', { providerId: 'custom', model: 'fake-model' }],
    // The first-colon split would say provider "ollama-launch" here too, but model "gpt-oss:20b"
    // must survive whole; and for custom:<p>:<m> the first colon would say "custom".
    ['custom:ollama-launch:gpt-oss:20b', 'gpt-oss:20b', { providerId: 'ollama-launch', model: 'gpt-oss:20b' }],
    // Splitting at colons would say provider "gpt-oss" (or "qwen3-coder") here.
    ['custom:gpt-oss:20b', 'gpt-oss:20b', { providerId: 'custom', model: 'gpt-oss:20b' }],
    ['custom:qwen3-coder:30b', 'qwen3-coder:30b', { providerId: 'custom', model: 'qwen3-coder:30b' }],
    ['gpt-oss:20b', 'gpt-oss:20b', { providerId: 'gpt-oss', model: '20b' }], // no prefix to peel: colon fallback
    ['plain', 'plain', { model: 'plain' }],
    [':odd', 'odd', { model: 'odd' }],
  ] as const)('splitModelId(%s, %s)', (modelId, label, expected) => {
    expect(splitModelId(modelId, label)).toEqual(expected);
  });
});

// ---- a realistic live catalog ---------------------------------------------------------------
// Shaped like the 52–59-row catalogs seen live: built-in providers with "<heading> · " names,
// configured providers (a `providers:` block) with bare names listed as `<p>:<m>` and again
// later as `custom:<p>:<m>` under the Custom endpoint heading, plus plain custom models.

const row = (modelId: string, name: string, heading: string): RawModelRow => ({
  modelId,
  name,
  description: `Provider: ${heading}`,
});
const builtin = (pid: string, heading: string, models: string[]) =>
  models.map((m) => row(`${pid}:${m}`, `${heading} · ${m}`, heading));
const configured = (pid: string, heading: string, models: string[]) =>
  models.map((m) => row(`${pid}:${m}`, m, heading));
const customDup = (pid: string, models: string[]) => models.map((m) => row(`custom:${pid}:${m}`, m, 'Custom endpoint'));

const OLLAMA = ['gpt-oss:20b', 'gpt-oss:120b', 'qwen3-coder:30b', 'llama4:scout', 'devstral:24b'];
const LMSTUDIO = ['qwen/qwen3-coder-30b', 'openai/gpt-oss-20b', 'mistral-small-3.2'];

const LIVE: RawModelRow[] = [
  ...builtin('nous', 'Nous Portal', [
    'anthropic/claude-opus-5',
    'anthropic/claude-sonnet-5',
    'openai/gpt-5.5',
    'google/gemini-3-pro',
    'moonshotai/kimi-k2.7',
    'z-ai/glm-5',
    'deepseek/deepseek-v4',
    'nousresearch/hermes-5-405b',
  ]),
  ...builtin('openrouter', 'OpenRouter', [
    'anthropic/claude-opus-5',
    'anthropic/claude-sonnet-5',
    'anthropic/claude-haiku-5',
    'openai/gpt-5.5',
    'openai/gpt-5.5-mini',
    'openai/o5',
    'google/gemini-3-pro',
    'google/gemini-3-flash',
    'x-ai/grok-5',
    'meta-llama/llama-4-maverick',
    'qwen/qwen3-coder-480b',
    'mistralai/devstral-2',
  ]),
  ...builtin('anthropic', 'Anthropic', ['claude-opus-5', 'claude-sonnet-5', 'claude-haiku-5']),
  ...builtin('openai-api', 'OpenAI API', ['gpt-5.5', 'gpt-5.5-mini', 'o5', 'gpt-5.5-codex']),
  ...builtin('gemini', 'Google AI Studio', ['gemini-3-pro', 'gemini-3-flash', 'gemini-3-flash-lite']),
  ...builtin('zai', 'Z.AI', ['glm-5', 'glm-5-air', 'glm-4.6']),
  ...builtin('kimi-coding', 'Kimi Coding', ['kimi-k2.7-code', 'kimi-k2.7']),
  ...builtin('deepseek', 'DeepSeek', ['deepseek-v4', 'deepseek-v4-reasoner']),
  ...builtin('xai', 'xAI', ['grok-5', 'grok-5-mini', 'grok-code-2']),
  ...configured('ollama-launch', 'Ollama launch', OLLAMA),
  ...configured('lmstudio', 'LM Studio', LMSTUDIO),
  ...customDup('ollama-launch', OLLAMA),
  ...customDup('lmstudio', LMSTUDIO),
  row('custom:kimi-k2.7-code', 'kimi-k2.7-code', 'Custom endpoint'),
  row('custom:fake-model', 'fake-model', 'Custom endpoint'),
  // A plain custom endpoint serving a model whose name has a colon: not provider "qwen3-coder".
  row('custom:qwen3-coder:30b', 'qwen3-coder:30b', 'Custom endpoint'),
];
// The current model carries the marker in its description, as Hermes sends it.
const CURRENT = 'nous:anthropic/claude-opus-5';
const LIVE_MARKED = LIVE.map((r) => (r.modelId === CURRENT ? { ...r, description: `${r.description} • current` } : r));

describe('hermesModelRows on a realistic live catalog', () => {
  const options = hermesModelRows(LIVE_MARKED, CURRENT);

  it('has the live size and drops exactly the custom:<p>:<m> duplicates', () => {
    expect(LIVE.length).toBe(59);
    expect(options.length).toBe(59 - OLLAMA.length - LMSTUDIO.length);
    expect(options.some((o) => o.id.startsWith('custom:ollama-launch:') || o.id.startsWith('custom:lmstudio:'))).toBe(
      false,
    );
    expect(new Set(options.map((o) => o.id)).size).toBe(options.length);
    // Order of first appearance is kept.
    const firstIds = LIVE.map((r) => r.modelId).filter((id) => !/^custom:(ollama-launch|lmstudio):/.test(id));
    expect(options.map((o) => o.id)).toEqual(firstIds);
  });

  it('strips the heading from names that carry it and from none else', () => {
    expect(options.some((o) => o.label.includes(' · '))).toBe(false);
    expect(options.filter((o) => o.providerId === 'ollama-launch').map((o) => o.label)).toEqual(OLLAMA);
  });

  it('groups by provider heading, with the current marker removed', () => {
    const groups = [...new Set(options.map((o) => o.group))];
    expect(groups).toEqual([
      'Nous Portal',
      'OpenRouter',
      'Anthropic',
      'OpenAI API',
      'Google AI Studio',
      'Z.AI',
      'Kimi Coding',
      'DeepSeek',
      'xAI',
      'Ollama launch',
      'LM Studio',
      'Custom endpoint',
    ]);
    expect(options.every((o) => o.description === undefined)).toBe(true);
  });

  it('flags exactly the current row', () => {
    expect(options.filter((o) => o.current).map((o) => o.id)).toEqual([CURRENT]);
    // Without currentModelId the " • current" marker decides.
    expect(
      hermesModelRows(LIVE_MARKED)
        .filter((o) => o.current)
        .map((o) => o.id),
    ).toEqual([CURRENT]);
  });

  it.each([
    ['nous:anthropic/claude-opus-5', 'anthropic/claude-opus-5', 'Nous Portal', 'nous'],
    ['openrouter:x-ai/grok-5', 'x-ai/grok-5', 'OpenRouter', 'openrouter'],
    ['openai-api:gpt-5.5-codex', 'gpt-5.5-codex', 'OpenAI API', 'openai-api'],
    ['kimi-coding:kimi-k2.7-code', 'kimi-k2.7-code', 'Kimi Coding', 'kimi-coding'],
    ['ollama-launch:gpt-oss:20b', 'gpt-oss:20b', 'Ollama launch', 'ollama-launch'],
    ['ollama-launch:qwen3-coder:30b', 'qwen3-coder:30b', 'Ollama launch', 'ollama-launch'],
    ['lmstudio:qwen/qwen3-coder-30b', 'qwen/qwen3-coder-30b', 'LM Studio', 'lmstudio'],
    ['custom:kimi-k2.7-code', 'kimi-k2.7-code', 'Custom endpoint', 'custom'],
    ['custom:fake-model', 'fake-model', 'Custom endpoint', 'custom'],
    ['custom:qwen3-coder:30b', 'qwen3-coder:30b', 'Custom endpoint', 'custom'],
  ])('%s → %s (%s, %s)', (id, label, group, providerId) => {
    const o = options.find((x) => x.id === id);
    expect(o && [o.label, o.group, o.providerId]).toEqual([label, group, providerId]);
  });

  it('keeps the dropped duplicate as an alias of the kept row', () => {
    const o = options.find((x) => x.id === 'ollama-launch:gpt-oss:20b');
    expect(o?.aliases).toEqual(['custom:ollama-launch:gpt-oss:20b']);
    expect(options.find((x) => x.id === 'custom:kimi-k2.7-code')?.aliases).toBeUndefined();
    // Same model under two providers is not a duplicate.
    expect(options.filter((x) => x.label === 'anthropic/claude-opus-5').map((x) => x.providerId)).toEqual([
      'nous',
      'openrouter',
    ]);
  });

  it('keeps the first when the custom: form comes first', () => {
    const rows = [
      ...customDup('ollama-launch', ['gpt-oss:20b']),
      ...configured('ollama-launch', 'Ollama launch', ['gpt-oss:20b']),
    ];
    expect(hermesModelRows(rows).map((o) => [o.id, o.group, o.aliases])).toEqual([
      ['custom:ollama-launch:gpt-oss:20b', 'Custom endpoint', ['ollama-launch:gpt-oss:20b']],
    ]);
  });

  it('a current dropped duplicate moves the current flag to the kept row and the catalog', () => {
    const current = 'custom:ollama-launch:llama4:scout';
    const c = normalizeCatalog({ models: { availableModels: LIVE, currentModelId: current } }, hermesModelRows);
    expect(c.model?.options.filter((o) => o.current).map((o) => o.id)).toEqual(['ollama-launch:llama4:scout']);
    expect(c.model?.currentId).toBe('ollama-launch:llama4:scout');
    expect(planSwitch(c, 'model', current)).toEqual({
      method: 'session/set_model',
      params: { modelId: 'ollama-launch:llama4:scout' },
    });
  });

  it('is pure: input rows are not modified', () => {
    const before = JSON.stringify(LIVE_MARKED);
    hermesModelRows(LIVE_MARKED, CURRENT);
    expect(JSON.stringify(LIVE_MARKED)).toBe(before);
  });
});
