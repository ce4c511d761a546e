/** Reading what a command printed: its meaningful line, its version (running it is os/run-program.ts). */

/** The first non-empty line of a command's output, for messages. */
export function firstLine(text: string): string {
  return (
    text
      .split(/\r?\n/)
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}

/** Stack-trace furniture: says where, not what went wrong. */
const TRACE_NOISE =
  /^(?:Traceback \(most recent call last\):|File ".*", line \d+|at\s|\^+$|~+[\^~]*$|node:internal\/|Node\.js v\d|throw \w+;?$|\{$|\}$|\.\.\.|During handling of the above exception)/;

/**
 * The line of an error output that says what went wrong. A Python crash begins with
 * "Traceback (most recent call last):" and ends with the exception; a Node crash puts
 * "Error: …" after the source line and before the stack. Else the first non-empty line.
 */
export function meaningfulLine(text: string): string {
  const lines = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const kept = lines.filter((l) => !TRACE_NOISE.test(l) && !/^\s*\d+\s*\|/.test(l));
  const error = [...kept]
    .reverse()
    .find((l) => /^(?:[\w.]*(?:Error|Exception|Exit|Interrupt)|error|fatal|panic)\b[^:]*:/i.test(l));
  if (error) return error;
  if (/^Traceback \(most recent call last\):/m.test(text)) return kept.at(-1) ?? firstLine(text);
  return kept[0] ?? firstLine(text);
}

/** "Hermes Agent v0.18.2", "0.61.0", "codex-acp 0.16.0" → the first x.y.z. */
export function parseVersion(text: string): string | undefined {
  return /\bv?(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]+)?)\b/.exec(text)?.[1];
}

/** Compares dotted versions numerically (prerelease tags ignored). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[-+]/)[0]!.split('.').map(Number);
  const pb = b.split(/[-+]/)[0]!.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}
