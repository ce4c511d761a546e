/**
 * NDJSON out, one write per burst: lines queued while one chunk of the agent's output is handled
 * go out together when it is done (a microtask), so a flood costs one write per read instead of
 * one per frame, and a lone frame is not held back.
 */
export function lineWriter(sink: (text: string) => void): (line: string) => void {
  let queued: string[] = [];
  const flush = (): void => {
    const lines = queued;
    queued = [];
    sink(lines.join('\n') + '\n');
  };
  return (line) => {
    if (queued.push(line) === 1) queueMicrotask(flush);
  };
}
