/**
 * Hermes' legacy model rows (`{modelId, name, description}` only) made presentable
 * (specs/hermes-acp.md, "session/new"):
 * - `description` is the provider heading ("Provider: Nous Portal", " • current" on the
 *   current row) → `group`, not a description;
 * - `name` repeats the heading ("Nous Portal · anthropic/claude-opus-5") except for rows
 *   from a `providers:` block ("gpt-oss:20b") → strip "<group> · " only when present;
 * - configured providers are listed twice, `<p>:<model>` and `custom:<p>:<model>` → keep the
 *   first, remember the other id as an alias;
 * - `providerId` = what is left of `modelId` once the model label is peeled off its END
 *   (labels have colons of their own: "gpt-oss:20b"), minus a leading "custom:".
 */
import type { CatalogOption, ModelRowNormalizer, RawModelRow } from '../../session/catalog.js';

const HEADING = /^Provider:\s*/;
const CURRENT_MARK = /\s*•\s*current\s*$/;
const CUSTOM = 'custom';

export const hermesModelRows: ModelRowNormalizer = (rows, currentModelId) => {
  const out: CatalogOption[] = [];
  const byKey = new Map<string, CatalogOption>();
  for (const row of rows) {
    const parsed = parseRow(row);
    const current = currentModelId !== undefined ? row.modelId === currentModelId : parsed.markedCurrent;
    const key = `${parsed.providerId ?? ''}\u0000${parsed.model}`;
    const kept = byKey.get(key);
    if (kept) {
      // The duplicate's id still works on the agent: keep it as an alias, and let it carry
      // the current flag over to the row we kept.
      (kept.aliases ??= []).push(row.modelId);
      if (current) kept.current = true;
      continue;
    }
    const opt: CatalogOption = { id: row.modelId, label: parsed.label, current, raw: row };
    if (parsed.group !== undefined) opt.group = parsed.group;
    if (parsed.description !== undefined) opt.description = parsed.description;
    if (parsed.providerId !== undefined) opt.providerId = parsed.providerId;
    byKey.set(key, opt);
    out.push(opt);
  }
  return out;
};

export interface ParsedHermesRow {
  label: string;
  /** The model part of modelId (modelId minus its provider prefix); the dedup key with providerId. */
  model: string;
  group?: string;
  /** A description that was not a provider heading (kept as the option's description). */
  description?: string;
  providerId?: string;
  markedCurrent: boolean;
}

export function parseRow(row: RawModelRow): ParsedHermesRow {
  const rawDesc = typeof row.description === 'string' ? row.description : '';
  const markedCurrent = CURRENT_MARK.test(rawDesc);
  const desc = rawDesc.replace(CURRENT_MARK, '');
  let group: string | undefined;
  let description: string | undefined;
  if (HEADING.test(desc)) group = desc.replace(HEADING, '') || undefined;
  else if (desc !== '') description = desc;

  const name = typeof row.name === 'string' ? row.name : '';
  const prefix = group !== undefined ? `${group} · ` : undefined;
  let label = prefix !== undefined && name.startsWith(prefix) ? name.slice(prefix.length) : name;
  if (label === '') label = row.modelId;

  const split = splitModelId(row.modelId, label);
  const parsed: ParsedHermesRow = { label, model: split.model, markedCurrent };
  if (group !== undefined) parsed.group = group;
  if (description !== undefined) parsed.description = description;
  if (split.providerId !== undefined) parsed.providerId = split.providerId;
  return parsed;
}

/**
 * `<p>:<label>` → p; `custom:<p>:<label>` → p; `custom:<label>` → custom.
 * When the label is not the tail of modelId (a display name that differs), fall back to
 * the colon structure: provider ids themselves never contain colons.
 */
export function splitModelId(modelId: string, label: string): { providerId?: string; model: string } {
  let prefix: string | undefined;
  let model: string;
  if (label !== modelId && modelId.endsWith(`:${label}`)) {
    prefix = modelId.slice(0, modelId.length - label.length - 1);
    model = label;
  } else {
    const i = modelId.indexOf(':');
    if (i < 0) return { model: modelId };
    prefix = modelId.slice(0, i);
    model = modelId.slice(i + 1);
    // custom:<p>:<model> with an unrecognisable label: the provider is the second segment.
    const j = model.indexOf(':');
    if (prefix === CUSTOM && j > 0) {
      prefix = `${CUSTOM}:${model.slice(0, j)}`;
      model = model.slice(j + 1);
    }
  }
  const providerId = prefix.startsWith(`${CUSTOM}:`) ? prefix.slice(CUSTOM.length + 1) : prefix;
  return providerId === '' ? { model } : { providerId, model };
}
