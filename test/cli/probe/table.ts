/** Reads cells out of `talaria probe`'s table: the row of a check → its result and evidence. */
const RESULT = /^(works|supported|quirk|BROKEN|unsupported|not testable|skipped)\s{2,}(.*)$/;

export interface Cell {
  result: string;
  evidence: string;
}

/** The row starting with `title` (padded with at least two spaces); its wrapped evidence lines joined. */
export function cell(stdout: string, title: string): Cell {
  const lines = stdout.split('\n');
  const i = lines.findIndex((l) => l.startsWith(`${title}  `) && RESULT.test(l.slice(title.length).trimStart()));
  if (i < 0) throw new Error(`no row '${title}' in:\n${stdout}`);
  const m = RESULT.exec(lines[i]!.slice(title.length).trimStart())!;
  const indent = lines[i]!.length - m[2]!.length;
  let evidence = m[2]!;
  // Continuation lines are indented to the evidence column.
  for (let j = i + 1; j < lines.length && lines[j]!.startsWith(' '.repeat(indent)) && lines[j]!.trim() !== ''; j++)
    evidence += ` ${lines[j]!.trim()}`;
  return { result: m[1]!, evidence };
}

export type Json = Record<string, any>;

export function row(report: Json, id: string): Json {
  const r = (report.checks as Json[]).find((c) => c.id === id);
  if (!r) throw new Error(`no check ${id} in the report`);
  return r;
}
