/**
 * A small unified-ish line diff for the Markdown export of `diff` tool content (oldText → newText).
 * Common prefix/suffix are trimmed, the middle is diffed by LCS when small enough (otherwise shown
 * as removed-then-added), and changes are grouped into hunks with 3 lines of context.
 */
const CONTEXT = 3;
/** Above this many DP cells the middle is not aligned (keeps export cheap on huge files). */
const MAX_CELLS = 250_000;

type Op = [' ' | '-' | '+', string];

function lines(text: string): string[] {
  if (text === '') return [];
  const out = text.split('\n');
  if (out[out.length - 1] === '') out.pop();
  return out;
}

function middleOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    return [...a.map((l): Op => ['-', l]), ...b.map((l): Op => ['+', l])];
  }
  // dp[i][j] = LCS length of a[i..] and b[j..]
  const dp = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i]![j] = a[i] === b[j] ? dp[i + 1]![j + 1]! + 1 : Math.max(dp[i + 1]![j]!, dp[i]![j + 1]!);
    }
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      ops.push([' ', a[i]!]);
      i++;
      j++;
    } else if (dp[i + 1]![j]! >= dp[i]![j + 1]!) ops.push(['-', a[i++]!]);
    else ops.push(['+', b[j++]!]);
  }
  while (i < n) ops.push(['-', a[i++]!]);
  while (j < m) ops.push(['+', b[j++]!]);
  return ops;
}

export function diffOps(oldText: string, newText: string): Op[] {
  const a = lines(oldText);
  const b = lines(newText);
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  return [
    ...a.slice(0, pre).map((l): Op => [' ', l]),
    ...middleOps(a.slice(pre, a.length - suf), b.slice(pre, b.length - suf)),
    ...a.slice(a.length - suf).map((l): Op => [' ', l]),
  ];
}

/** `--- path` / `+++ path` headers and hunks; `oldText` null/undefined means a new file. */
export function unifiedDiff(path: string, oldText: string | null | undefined, newText: string): string {
  const out = [oldText == null ? '--- /dev/null' : `--- ${path}`, `+++ ${path}`];
  const ops = diffOps(oldText ?? '', newText);
  const changed: number[] = [];
  ops.forEach((op, k) => {
    if (op[0] !== ' ') changed.push(k);
  });
  let g = 0;
  while (g < changed.length) {
    let last = g;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= 2 * CONTEXT + 1) last++;
    const start = Math.max(0, changed[g]! - CONTEXT);
    const end = Math.min(ops.length, changed[last]! + CONTEXT + 1);
    let oldBefore = 0;
    let newBefore = 0;
    for (let k = 0; k < start; k++) {
      if (ops[k]![0] !== '+') oldBefore++;
      if (ops[k]![0] !== '-') newBefore++;
    }
    let oldCount = 0;
    let newCount = 0;
    const body: string[] = [];
    for (let k = start; k < end; k++) {
      const [sign, text] = ops[k]!;
      if (sign !== '+') oldCount++;
      if (sign !== '-') newCount++;
      body.push(sign + text);
    }
    const range = (before: number, count: number) => `${count === 0 ? before : before + 1},${count}`;
    out.push(`@@ -${range(oldBefore, oldCount)} +${range(newBefore, newCount)} @@`, ...body);
    g = last + 1;
  }
  return out.join('\n');
}
