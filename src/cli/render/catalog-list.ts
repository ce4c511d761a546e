/** A model or mode selector as a list (`talaria models`, `/model`), the current one marked. */
import type { CatalogSelector } from '../../session/catalog.js';
import type { Style } from './style.js';
import { sanitize } from './width.js';

export function selectorLines(sel: CatalogSelector | undefined, kind: 'model' | 'mode', style: Style): string[] {
  if (!sel || sel.options.length === 0) return [`This agent offers no ${kind} choice.`];
  const lines: string[] = [];
  let group: string | undefined;
  for (const o of sel.options) {
    if (o.group && o.group !== group) {
      group = o.group;
      lines.push(style.bold(sanitize(group)));
    }
    const current = o.id === sel.currentId || o.current;
    const label = o.label && o.label !== o.id ? ` — ${sanitize(o.label)}` : '';
    const desc = o.description ? style.dim(` (${sanitize(o.description)})`) : '';
    lines.push(`${current ? style.green('*') : ' '} ${current ? style.bold(o.id) : o.id}${label}${desc}`);
  }
  return lines;
}
