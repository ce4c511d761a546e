/**
 * Counts the objects one CapTP endpoint exported and how many of them were collected since
 * (CapTP's `exportHook` + a FinalizationRegistry): `made - collected` is what the endpoint still
 * retains for its peer, the figure that must stay flat however many calls go through.
 */
export interface ExportCount {
  /** Objects and promises exported so far. */
  made: number;
  /** Of those, collected by the garbage collector (so released by CapTP too). */
  collected: number;
}

export function exportCounter(): { hook: (val: unknown, slot: string) => void; count: () => ExportCount } {
  let made = 0;
  let collected = 0;
  const registry = new FinalizationRegistry<undefined>(() => void collected++);
  return {
    hook: (val) => {
      made++;
      if ((typeof val === 'object' && val !== null) || typeof val === 'function') registry.register(val, undefined);
      else collected++;
    },
    count: () => ({ made, collected }),
  };
}
