import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import {
  applyConfigOptionUpdate,
  applyCurrentMode,
  applyCurrentModel,
  normalizeCatalog,
  planSwitch,
  type Catalog,
  type ModelRowNormalizer,
} from '../../src/session/catalog.js';
import { TalariaError } from '../../src/protocol/errors.js';
import type { WireLogLine } from '../../src/protocol/types.js';

function sessionNewResult(name: string): Record<string, unknown> {
  const path = fileURLToPath(new URL(`../fixtures/hermes-0.18.2/${name}`, import.meta.url));
  const lines = readFileSync(path, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as WireLogLine);
  const req = lines.find((l) => l.dir === 'client->agent' && l.msg.method === 'session/new');
  const res = lines.find((l) => l.dir === 'agent->client' && l.msg.id === req?.msg.id && 'result' in l.msg);
  return res?.msg.result as Record<string, unknown>;
}

function thrown(fn: () => unknown): TalariaError {
  try {
    fn();
  } catch (e) {
    if (e instanceof TalariaError) return e;
    throw e;
  }
  throw new Error('did not throw');
}

const ids = (c: Catalog, k: 'model' | 'mode') => c[k]?.options.map((o) => o.id);
const currentIds = (c: Catalog, k: 'model' | 'mode') => c[k]?.options.filter((o) => o.current).map((o) => o.id);

// A configOptions agent (current ACP): grouped model select, flat mode select, a thought level
// select and a boolean toggle.
const CONFIG_OPTIONS = [
  {
    id: 'model',
    name: 'Model',
    category: 'model',
    type: 'select',
    currentValue: 'sonnet',
    options: [
      {
        group: 'anthropic',
        name: 'Anthropic',
        options: [
          { value: 'sonnet', name: 'Sonnet 5' },
          { value: 'opus', name: 'Opus 5', description: 'Smartest' },
        ],
      },
      { group: 'openai', name: 'OpenAI', options: [{ value: 'gpt-6', name: 'GPT-6' }] },
    ],
  },
  {
    id: 'approval',
    name: 'Approval mode',
    category: 'mode',
    type: 'select',
    currentValue: 'ask',
    options: [
      { value: 'ask', name: 'Ask' },
      { value: 'auto', name: 'Auto', description: 'Edit freely' },
    ],
  },
  {
    id: 'effort',
    name: 'Thinking',
    category: 'thought_level',
    type: 'select',
    currentValue: 'high',
    options: [
      { value: 'low', name: 'Low' },
      { value: 'high', name: 'High' },
    ],
  },
  { id: 'web', name: 'Web search', type: 'boolean', currentValue: true },
];

const LEGACY = {
  models: {
    availableModels: [
      { modelId: 'm1', name: 'Model One', description: 'first' },
      { modelId: 'm2', name: '' },
    ],
    currentModelId: 'm2',
  },
  modes: {
    availableModes: [
      { id: 'default', name: 'Default', description: 'Ask before edits.' },
      { id: 'yolo', name: 'YOLO' },
    ],
    currentModeId: 'default',
  },
};

describe('normalizeCatalog', () => {
  it('reads the legacy models + modes of a real Hermes session/new', () => {
    const c = normalizeCatalog(sessionNewResult('main.ndjson'));
    expect(c.model).toMatchObject({ kind: 'model', source: 'legacy', currentId: 'custom:fake-model' });
    expect(c.model?.options).toEqual([
      {
        id: 'custom:fake-model',
        label: 'fake-model',
        description: 'Provider: Custom endpoint • current',
        current: true,
        raw: { description: 'Provider: Custom endpoint • current', modelId: 'custom:fake-model', name: 'fake-model' },
      },
    ]);
    expect(c.mode).toMatchObject({ kind: 'mode', source: 'legacy', currentId: 'default' });
    expect(c.mode?.options.map((o) => [o.id, o.label, o.current])).toEqual([
      ['default', 'Default', true],
      ['accept_edits', 'Accept Edits', false],
      ['dont_ask', "Don't Ask", false],
    ]);
    expect(c.others).toEqual([]);
  });

  it('legacy: label falls back to modelId, description only when non-empty', () => {
    const c = normalizeCatalog(LEGACY);
    expect(c.model?.options.map(({ raw: _raw, ...o }) => o)).toEqual([
      { id: 'm1', label: 'Model One', description: 'first', current: false },
      { id: 'm2', label: 'm2', current: true },
    ]);
    expect(c.mode?.options.map(({ raw: _raw, ...o }) => o)).toEqual([
      { id: 'default', label: 'Default', description: 'Ask before edits.', current: true },
      { id: 'yolo', label: 'YOLO', current: false },
    ]);
  });

  it('configOptions: grouped and flat selects, others for other categories and booleans', () => {
    const c = normalizeCatalog({ configOptions: CONFIG_OPTIONS });
    expect(c.model).toMatchObject({
      kind: 'model',
      source: 'config',
      configId: 'model',
      currentId: 'sonnet',
      type: 'select',
      name: 'Model',
    });
    expect(c.model?.options.map(({ raw: _raw, ...o }) => o)).toEqual([
      { id: 'sonnet', label: 'Sonnet 5', group: 'Anthropic', current: true },
      { id: 'opus', label: 'Opus 5', description: 'Smartest', group: 'Anthropic', current: false },
      { id: 'gpt-6', label: 'GPT-6', group: 'OpenAI', current: false },
    ]);
    expect(c.mode).toMatchObject({ kind: 'mode', source: 'config', configId: 'approval', currentId: 'ask' });
    expect(c.mode?.options.map((o) => [o.id, o.group, o.current])).toEqual([
      ['ask', undefined, true],
      ['auto', undefined, false],
    ]);
    expect(c.others.map((s) => [s.kind, s.configId, s.category, s.type, s.currentId, s.value])).toEqual([
      ['other', 'effort', 'thought_level', 'select', 'high', undefined],
      ['other', 'web', undefined, 'boolean', undefined, true],
    ]);
    expect(c.others[1]?.options).toEqual([]);
  });

  it('configOptions win over legacy per category; legacy fills the gaps', () => {
    const both = normalizeCatalog({ configOptions: CONFIG_OPTIONS, ...LEGACY });
    expect(both.model?.source).toBe('config');
    expect(both.mode?.source).toBe('config');
    const modelOnly = normalizeCatalog({ configOptions: [CONFIG_OPTIONS[0]], ...LEGACY });
    expect(modelOnly.model?.source).toBe('config');
    expect(modelOnly.mode).toMatchObject({ source: 'legacy', currentId: 'default' });
  });

  it('a second select of the same category goes to others', () => {
    const c = normalizeCatalog({ configOptions: [CONFIG_OPTIONS[0], { ...CONFIG_OPTIONS[0], id: 'subagent_model' }] });
    expect(c.model?.configId).toBe('model');
    expect(c.others.map((s) => [s.kind, s.configId, s.category])).toEqual([['other', 'subagent_model', 'model']]);
  });

  it.each([
    ['nothing', {}],
    ['nulls', { configOptions: null, models: null, modes: null }],
    ["Hermes' empty set_config_option answer", { configOptions: [] }],
    [
      'junk',
      {
        configOptions: [1, 'x', null, { name: 'no id' }],
        models: { availableModels: [{ name: 'no id' }] },
        modes: 'x',
      },
    ],
  ])('tolerates %s', (_name, input) => {
    expect(normalizeCatalog(input)).toEqual({ others: [] });
  });

  it('skips malformed options but keeps the selector', () => {
    const c = normalizeCatalog({
      configOptions: [
        {
          id: 'model',
          category: 'model',
          type: 'select',
          currentValue: 'a',
          options: [
            { value: 'a' },
            { name: 'no value' },
            7,
            { group: 'g', name: 'G', options: [null, { value: 'b', name: 'B' }] },
          ],
        },
      ],
    });
    expect(c.model?.options.map((o) => [o.id, o.label, o.group])).toEqual([
      ['a', 'a', undefined],
      ['b', 'B', 'G'],
    ]);
  });

  it('passes legacy rows through a custom normalizer with the current id', () => {
    let seen: unknown;
    const upper: ModelRowNormalizer = (rows, current) => {
      seen = [rows.map((r) => r.modelId), current];
      return rows.map((r) => ({ id: r.modelId, label: r.modelId.toUpperCase(), current: false }));
    };
    const c = normalizeCatalog(LEGACY, upper);
    expect(seen).toEqual([['m1', 'm2'], 'm2']);
    expect(c.model?.options.map((o) => o.label)).toEqual(['M1', 'M2']);
    expect(c.model?.currentId).toBe('m2'); // no option flagged: the reported id stands
  });

  it('takes currentId from the option a normalizer flagged (folded duplicates)', () => {
    const fold: ModelRowNormalizer = () => [{ id: 'p:m', label: 'm', current: true, aliases: ['custom:p:m'] }];
    const c = normalizeCatalog(
      { models: { availableModels: [{ modelId: 'p:m' }, { modelId: 'custom:p:m' }], currentModelId: 'custom:p:m' } },
      fold,
    );
    expect(c.model?.currentId).toBe('p:m');
  });
});

describe('applying updates', () => {
  it('config_option_update replaces config selectors and keeps legacy ones it does not cover', () => {
    const start = normalizeCatalog({ configOptions: CONFIG_OPTIONS.slice(0, 1), ...LEGACY });
    const next = applyConfigOptionUpdate(start, [{ ...CONFIG_OPTIONS[0], currentValue: 'opus' }, CONFIG_OPTIONS[3]]);
    expect(next.model?.currentId).toBe('opus');
    expect(currentIds(next, 'model')).toEqual(['opus']);
    expect(next.mode).toBe(start.mode); // legacy mode untouched
    expect(next.others.map((s) => s.configId)).toEqual(['web']);
    expect(start.model?.currentId).toBe('sonnet'); // pure
  });

  it('config_option_update drops config selectors absent from the new full set', () => {
    const start = normalizeCatalog({ configOptions: CONFIG_OPTIONS });
    const next = applyConfigOptionUpdate(start, [CONFIG_OPTIONS[1]]);
    expect(next.model).toBeUndefined();
    expect(next.mode?.configId).toBe('approval');
    expect(next.others).toEqual([]);
  });

  it('a config mode selector arriving later takes over from the legacy one', () => {
    const start = normalizeCatalog(LEGACY);
    const next = applyConfigOptionUpdate(start, [CONFIG_OPTIONS[1]]);
    expect(next.mode?.source).toBe('config');
    expect(next.model?.source).toBe('legacy');
  });

  it('current_mode_update moves the current flag, purely', () => {
    const start = normalizeCatalog(sessionNewResult('tools.ndjson'));
    const next = applyCurrentMode(start, 'dont_ask');
    expect(next.mode?.currentId).toBe('dont_ask');
    expect(currentIds(next, 'mode')).toEqual(['dont_ask']);
    expect(currentIds(start, 'mode')).toEqual(['default']);
    expect(next.model).toBe(start.model);
  });

  it('an unlisted current id is recorded with no option flagged', () => {
    const next = applyCurrentMode(normalizeCatalog(LEGACY), 'plan');
    expect(next.mode?.currentId).toBe('plan');
    expect(currentIds(next, 'mode')).toEqual([]);
  });

  it('applyCurrentModel works on config selectors and resolves aliases', () => {
    const cfg = applyCurrentModel(normalizeCatalog({ configOptions: CONFIG_OPTIONS }), 'gpt-6');
    expect(cfg.model?.currentId).toBe('gpt-6');
    expect(currentIds(cfg, 'model')).toEqual(['gpt-6']);
    const aliased: Catalog = {
      others: [],
      model: {
        kind: 'model',
        source: 'legacy',
        currentId: 'a',
        options: [
          { id: 'a', label: 'a', current: true },
          { id: 'p:m', label: 'm', current: false, aliases: ['custom:p:m'] },
        ],
      },
    };
    const next = applyCurrentModel(aliased, 'custom:p:m');
    expect(next.model?.currentId).toBe('p:m');
    expect(currentIds(next, 'model')).toEqual(['p:m']);
  });

  it('without a selector the catalog is returned unchanged', () => {
    const empty: Catalog = { others: [] };
    expect(applyCurrentMode(empty, 'x')).toBe(empty);
    expect(applyCurrentModel(empty, 'x')).toBe(empty);
  });
});

describe('planSwitch', () => {
  it.each([
    [
      'config model',
      { configOptions: CONFIG_OPTIONS },
      'model',
      'opus',
      { method: 'session/set_config_option', params: { configId: 'model', value: 'opus' } },
    ],
    [
      'config mode',
      { configOptions: CONFIG_OPTIONS },
      'mode',
      'auto',
      { method: 'session/set_config_option', params: { configId: 'approval', value: 'auto' } },
    ],
    ['legacy model', LEGACY, 'model', 'm1', { method: 'session/set_model', params: { modelId: 'm1' } }],
    ['legacy mode', LEGACY, 'mode', 'yolo', { method: 'session/set_mode', params: { modeId: 'yolo' } }],
    [
      'Hermes mode',
      sessionNewResult('tools.ndjson'),
      'mode',
      'dont_ask',
      { method: 'session/set_mode', params: { modeId: 'dont_ask' } },
    ],
    [
      'Hermes model',
      sessionNewResult('main.ndjson'),
      'model',
      'custom:fake-model',
      { method: 'session/set_model', params: { modelId: 'custom:fake-model' } },
    ],
  ] as const)('%s', (_n, result, kind, id, plan) => {
    expect(planSwitch(normalizeCatalog(result), kind, id)).toEqual(plan);
  });

  it('sends the canonical id when given an alias', () => {
    const c: Catalog = {
      others: [],
      model: {
        kind: 'model',
        source: 'legacy',
        options: [{ id: 'p:m', label: 'm', current: false, aliases: ['custom:p:m'] }],
      },
    };
    expect(planSwitch(c, 'model', 'custom:p:m')).toEqual({ method: 'session/set_model', params: { modelId: 'p:m' } });
  });

  it('unknown id → invalid_argument listing the valid ids', () => {
    const e = thrown(() => planSwitch(normalizeCatalog(sessionNewResult('main.ndjson')), 'mode', 'plan'));
    expect(e.code).toBe('invalid_argument');
    expect(e.details).toEqual({ kind: 'mode', id: 'plan', valid: ['default', 'accept_edits', 'dont_ask'] });
  });

  it('no selector → unsupported', () => {
    const e = thrown(() => planSwitch(normalizeCatalog({ configOptions: CONFIG_OPTIONS.slice(1) }), 'model', 'opus'));
    expect(e.code).toBe('unsupported');
    expect(e.details).toEqual({ kind: 'model' });
    expect(ids(normalizeCatalog({}), 'mode')).toBeUndefined();
    expect(thrown(() => planSwitch(normalizeCatalog({}), 'mode', 'x')).code).toBe('unsupported');
  });
});
