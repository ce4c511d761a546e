/** Gemini CLI (`gemini --acp`, older releases `--experimental-acp`). */
import type { QuirkSet } from './types.js';

export const geminiQuirks: QuirkSet = {
  id: 'gemini-cli',
  label: 'Gemini CLI',
  names: /^gemini-cli$/i,
  hintName: 'gemini-cli',
  commandHints: [/^gemini$/, /[\\/]@google[\\/]gemini-cli[\\/]/],
  // Its write_file cannot create a NEW file while the client offers fs.readTextFile (its
  // not-found check does not recognise any client error): never offer read to it.
  clientCaps: { fs: { read: false } },
};
