/**
 * Work nobody awaits (a close in the background, a cleanup after an exit) still ends somewhere:
 * its failure is logged, never left as an unhandled rejection that would stop the program
 * embedding Talaria.
 */

/** The one thing `background` needs of a logger (protocol's `Logger` fits). */
export interface ErrorLogger {
  error(msg: string, data?: Record<string, unknown>): void;
}

export function background(
  work: PromiseLike<unknown> | undefined,
  logger: ErrorLogger,
  what: string,
  data?: Record<string, unknown>,
): void {
  if (work === undefined) return;
  Promise.resolve(work).then(undefined, (err: unknown) =>
    logger.error(`${what} failed`, { ...data, error: err instanceof Error ? err.message : String(err) }),
  );
}
