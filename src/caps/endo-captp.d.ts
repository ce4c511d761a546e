// @endo/captp ships no declarations for its entry point; this is the part the caps face uses.
declare module '@endo/captp' {
  export interface CapTPOptions {
    /** Release imports the peer dropped (without it, 50k calls never free a remote object). */
    gcImports?: boolean;
    onReject?: (err: unknown) => void;
    epoch?: number;
    /** Sees each value as it is first exported, with its slot. */
    exportHook?: (val: unknown, slot: string) => void;
  }
  export interface CapTP {
    /** Handles one decoded message; false when its type is unknown. */
    dispatch(msg: unknown): boolean;
    getBootstrap(): Promise<unknown>;
    abort(reason?: unknown): void;
    getStats(): { send: Record<string, number>; recv: Record<string, number>; gc: Record<string, number> };
  }
  export function makeCapTP(
    ourId: string,
    rawSend: (msg: unknown) => void,
    bootstrap?: unknown,
    opts?: CapTPOptions,
  ): CapTP;
}
