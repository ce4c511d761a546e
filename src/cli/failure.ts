/** One readable message for a dead or failing agent: what happened, how it exited, its last stderr lines. */

export interface FailureDetails {
  exitCode?: number | null;
  signal?: string | null;
  stderrTail?: string;
}

export function formatAgentFailure(message: string, details: FailureDetails = {}): string {
  // ConnectionClosedError messages embed "; stderr: …"; show that tail indented instead.
  const cut = message.indexOf('; stderr:');
  let head = cut >= 0 ? message.slice(0, cut) : message;
  const tail = (details.stderrTail ?? (cut >= 0 ? message.slice(cut + '; stderr:'.length) : ''))
    .replace(/^\s*…/, '')
    .trim();
  if (!/exited|killed|signal/.test(head)) {
    if (details.exitCode !== undefined && details.exitCode !== null)
      head += ` (the agent exited with code ${details.exitCode})`;
    else if (details.signal) head += ` (the agent was killed by ${details.signal})`;
  }
  if (tail === '') return head;
  return `${head}\n${tail
    .split('\n')
    .slice(-8)
    .map((l) => `  | ${l}`)
    .join('\n')}`;
}
