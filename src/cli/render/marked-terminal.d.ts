/** marked-terminal ships no types (and @types/marked-terminal pins an old marked): what we use. */
declare module 'marked-terminal' {
  export function markedTerminal(
    options?: Record<string, unknown>,
    highlightOptions?: Record<string, unknown>,
  ): unknown;
}
