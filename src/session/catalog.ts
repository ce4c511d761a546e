/**
 * One normalized catalog for models and modes, whatever dialect the agent speaks:
 * current ACP `configOptions` (select/boolean, `category: model|mode|…`, set with
 * `session/set_config_option`) or the legacy `models` (+ `session/set_model`) and
 * `modes` (+ `session/set_mode`). configOptions win per category when both are present.
 * Pure: every function returns a new catalog. Input is loose JSON: agents send what they send.
 */
import { TalariaError } from '../protocol/errors.js';
import { isRecord } from '../os/record.js';

export interface CatalogOption {
  id: string;
  label: string;
  description?: string;
  /** Heading the option is listed under (config option group name, Hermes provider). */
  group?: string;
  providerId?: string;
  current: boolean;
  /** Other ids the agent accepts for this same option (duplicates dropped by a normalizer). */
  aliases?: string[];
  /** The row / option exactly as the agent sent it. */
  raw?: unknown;
}

export interface CatalogSelector {
  kind: 'model' | 'mode' | 'other';
  source: 'config' | 'legacy';
  /** The config option id (source 'config' only). */
  configId?: string;
  currentId?: string;
  options: CatalogOption[];
  /** Config options only: display name, category as sent, and value type. */
  name?: string;
  category?: string;
  type?: 'select' | 'boolean';
  /** Boolean config options: the current value (they have no `options`). */
  value?: boolean;
  raw?: unknown;
}

export interface Catalog {
  model?: CatalogSelector;
  mode?: CatalogSelector;
  others: CatalogSelector[];
}

/** A legacy `models.availableModels[]` row, loosely checked (only `modelId` is required). */
export interface RawModelRow {
  modelId: string;
  name?: string;
  description?: string | null;
  [k: string]: unknown;
}

export type ModelRowNormalizer = (rows: RawModelRow[], currentModelId?: string) => CatalogOption[];

export interface SessionResultLike {
  configOptions?: unknown;
  models?: unknown;
  modes?: unknown;
}

export type SwitchPlan =
  | { method: 'session/set_config_option'; params: { configId: string; value: string } }
  | { method: 'session/set_model'; params: { modelId: string } }
  | { method: 'session/set_mode'; params: { modeId: string } };

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
/** Non-empty string or undefined: an empty description/name is no description/name. */
const text = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** Default: rows as given, label = name || modelId. */
export const defaultModelRows: ModelRowNormalizer = (rows, currentModelId) =>
  rows.map((row) => {
    const opt: CatalogOption = {
      id: row.modelId,
      label: text(row.name) ?? row.modelId,
      current: row.modelId === currentModelId,
      raw: row,
    };
    const description = text(row.description);
    if (description !== undefined) opt.description = description;
    return opt;
  });

export function normalizeCatalog(
  sessionResult: SessionResultLike,
  normalizer: ModelRowNormalizer = defaultModelRows,
): Catalog {
  const catalog = fromConfigOptions(sessionResult.configOptions);
  if (!catalog.model) {
    const legacy = legacyModels(sessionResult.models, normalizer);
    if (legacy) catalog.model = legacy;
  }
  if (!catalog.mode) {
    const legacy = legacyModes(sessionResult.modes);
    if (legacy) catalog.mode = legacy;
  }
  return catalog;
}

/**
 * `config_option_update` (and the set_config_option response) carry the FULL set of config
 * options: they replace every config-sourced selector. Legacy selectors stay unless the new
 * set now covers their category.
 */
export function applyConfigOptionUpdate(catalog: Catalog, configOptions: unknown): Catalog {
  const fresh = fromConfigOptions(configOptions);
  const keep = (s: CatalogSelector | undefined) => (s?.source === 'legacy' ? s : undefined);
  const out: Catalog = { others: fresh.others };
  const model = fresh.model ?? keep(catalog.model);
  const mode = fresh.mode ?? keep(catalog.mode);
  if (model) out.model = model;
  if (mode) out.mode = mode;
  return out;
}

/** `current_mode_update`, or a successful switch the agent did not echo (Hermes never does). */
export function applyCurrentMode(catalog: Catalog, modeId: string): Catalog {
  return catalog.mode ? { ...catalog, mode: withCurrent(catalog.mode, modeId) } : catalog;
}

export function applyCurrentModel(catalog: Catalog, modelId: string): Catalog {
  return catalog.model ? { ...catalog, model: withCurrent(catalog.model, modelId) } : catalog;
}

/** The request that switches model/mode to `id` (the caller adds `sessionId`). */
export function planSwitch(catalog: Catalog, kind: 'model' | 'mode', id: string): SwitchPlan {
  const selector = catalog[kind];
  if (!selector) {
    throw new TalariaError('unsupported', `the agent offers no ${kind} selector`, { kind });
  }
  const option = findOption(selector, id);
  if (!option) {
    throw new TalariaError('invalid_argument', `unknown ${kind} "${id}"`, {
      kind,
      id,
      valid: selector.options.map((o) => o.id),
    });
  }
  if (selector.source === 'config' && selector.configId !== undefined) {
    return { method: 'session/set_config_option', params: { configId: selector.configId, value: option.id } };
  }
  return kind === 'model'
    ? { method: 'session/set_model', params: { modelId: option.id } }
    : { method: 'session/set_mode', params: { modeId: option.id } };
}

/** The option whose id (or alias) is `id`. */
export function findOption(selector: CatalogSelector, id: string): CatalogOption | undefined {
  return selector.options.find((o) => o.id === id || (o.aliases?.includes(id) ?? false));
}

function withCurrent(selector: CatalogSelector, id: string): CatalogSelector {
  const hit = findOption(selector, id);
  return {
    ...selector,
    // Canonical id when the id was an alias; else as given (agent may report an unlisted id).
    currentId: hit ? hit.id : id,
    options: selector.options.map((o) => ({ ...o, current: o === hit })),
  };
}

// ---- configOptions ----------------------------------------------------------------------

function fromConfigOptions(configOptions: unknown): Catalog {
  const catalog: Catalog = { others: [] };
  if (!Array.isArray(configOptions)) return catalog;
  for (const entry of configOptions) {
    const selector = configSelector(entry);
    if (!selector) continue;
    // The first select of a category is THE model/mode selector; extra ones become others.
    if (selector.kind === 'model' && !catalog.model) catalog.model = selector;
    else if (selector.kind === 'mode' && !catalog.mode) catalog.mode = selector;
    else catalog.others.push({ ...selector, kind: 'other' });
  }
  return catalog;
}

function configSelector(entry: unknown): CatalogSelector | undefined {
  if (!isRecord(entry)) return undefined;
  const configId = str(entry['id']);
  if (configId === undefined) return undefined;
  const category = str(entry['category']);
  const base: CatalogSelector = { kind: 'other', source: 'config', configId, options: [], raw: entry };
  const name = text(entry['name']);
  if (name !== undefined) base.name = name;
  if (category !== undefined) base.category = category;

  if (entry['type'] === 'boolean' || typeof entry['currentValue'] === 'boolean') {
    base.type = 'boolean';
    if (typeof entry['currentValue'] === 'boolean') base.value = entry['currentValue'];
    return base; // a toggle is never the model/mode selector
  }
  // Anything else with a string currentValue or an options list is treated as a select.
  base.type = 'select';
  const currentId = str(entry['currentValue']);
  if (currentId !== undefined) base.currentId = currentId;
  base.options = selectOptions(entry['options'], currentId);
  if (category === 'model' || category === 'mode') base.kind = category;
  return base;
}

/** Flat `[{value,name,description}]` or grouped `[{group,name,options:[…]}]`, even mixed. */
function selectOptions(options: unknown, currentId: string | undefined): CatalogOption[] {
  if (!Array.isArray(options)) return [];
  const out: CatalogOption[] = [];
  for (const item of options) {
    if (!isRecord(item)) continue;
    if (Array.isArray(item['options'])) {
      const group = text(item['name']) ?? str(item['group']);
      for (const inner of item['options']) {
        const opt = selectOption(inner, currentId, group);
        if (opt) out.push(opt);
      }
    } else {
      const opt = selectOption(item, currentId, undefined);
      if (opt) out.push(opt);
    }
  }
  return out;
}

function selectOption(
  item: unknown,
  currentId: string | undefined,
  group: string | undefined,
): CatalogOption | undefined {
  if (!isRecord(item)) return undefined;
  const id = str(item['value']);
  if (id === undefined) return undefined;
  const opt: CatalogOption = { id, label: text(item['name']) ?? id, current: id === currentId, raw: item };
  const description = text(item['description']);
  if (description !== undefined) opt.description = description;
  if (group !== undefined) opt.group = group;
  return opt;
}

// ---- legacy models / modes --------------------------------------------------------------

function legacyModels(models: unknown, normalizer: ModelRowNormalizer): CatalogSelector | undefined {
  if (!isRecord(models)) return undefined;
  const list = models['availableModels'];
  const currentModelId = str(models['currentModelId']);
  const rows: RawModelRow[] = Array.isArray(list)
    ? list.filter((r): r is RawModelRow => isRecord(r) && typeof r['modelId'] === 'string')
    : [];
  if (rows.length === 0 && currentModelId === undefined) return undefined;
  const options = normalizer(rows, currentModelId);
  const selector: CatalogSelector = { kind: 'model', source: 'legacy', options, raw: models };
  // Prefer the id of the option flagged current: a normalizer may have folded the
  // reported id into an alias of a kept row.
  const currentId = options.find((o) => o.current)?.id ?? currentModelId;
  if (currentId !== undefined) selector.currentId = currentId;
  return selector;
}

function legacyModes(modes: unknown): CatalogSelector | undefined {
  if (!isRecord(modes)) return undefined;
  const list = modes['availableModes'];
  const currentId = str(modes['currentModeId']);
  const options: CatalogOption[] = [];
  if (Array.isArray(list)) {
    for (const m of list) {
      if (!isRecord(m)) continue;
      const id = str(m['id']);
      if (id === undefined) continue;
      const opt: CatalogOption = { id, label: text(m['name']) ?? id, current: id === currentId, raw: m };
      const description = text(m['description']);
      if (description !== undefined) opt.description = description;
      options.push(opt);
    }
  }
  if (options.length === 0 && currentId === undefined) return undefined;
  const selector: CatalogSelector = { kind: 'mode', source: 'legacy', options, raw: modes };
  if (currentId !== undefined) selector.currentId = currentId;
  return selector;
}
