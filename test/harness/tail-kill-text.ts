/** Chunk k of the mid-message kill test's message (tail-kill-child.ts): numbered, of varying length. */
export const chunkText = (k: number): string => `c${k}:` + 'z'.repeat(k % 97) + (k % 11 === 0 ? '\n\n' : ' ');
