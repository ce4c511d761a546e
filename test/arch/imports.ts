/**
 * What a TypeScript source imports, by regex (the sources follow Prettier's layout): static
 * imports and re-exports with whether they are type-only, and dynamic `import('…')`.
 */
export interface Imp {
  spec: string;
  typeOnly: boolean;
}

export function importsOf(source: string): Imp[] {
  const out: Imp[] = [];
  const re = /(?:^|\n)\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/g;
  for (let m; (m = re.exec(source));) out.push({ spec: m[3]!, typeOnly: Boolean(m[2]) });
  const dyn = /import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (let m; (m = dyn.exec(source));) out.push({ spec: m[1]!, typeOnly: false });
  return out;
}
