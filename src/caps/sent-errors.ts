/**
 * @endo/marshal `console.log`s "Temporary logging of sent error" (and SES's console then prints
 * the error's stack) for every Error CapTP sends to a peer — a refused call, a revoked reference —
 * and CapTP gives no way to pass marshal its `marshalSaveError` option. Under `talaria serve
 * --caps` that is stdout noise per refusal. So, once locked down, the global console (frozen by
 * SES, but the global binding is writable) is replaced by a copy whose `log` hands exactly those
 * calls to whoever listens here (each CapsHost: its Logger) and passes everything else through.
 */
const MARKER = 'Temporary logging of sent error';

type Listener = (err: unknown) => void;
const listeners = new Set<Listener>();

/** Hears each error sent to a peer (instead of stdout); returns the unregister function. */
export function onSentError(fn: Listener): () => void {
  listeners.add(fn);
  return () => listeners.delete(fn);
}

const INSTALLED = Symbol.for('talaria.caps.sent-errors');
const g = globalThis as typeof globalThis & { [INSTALLED]?: true };
if (!g[INSTALLED]) {
  const base = globalThis.console;
  const quiet = Object.assign(Object.create(Object.getPrototypeOf(base) as object) as Console, base);
  quiet.log = (...args: unknown[]): void => {
    if (args[0] === MARKER) {
      for (const fn of listeners) fn(args[1]);
      return;
    }
    base.log(...args);
  };
  Object.defineProperty(globalThis, 'console', {
    value: Object.freeze(quiet),
    writable: true,
    configurable: true,
    enumerable: false,
  });
  g[INSTALLED] = true;
}
