/**
 * A child process that file modes apply to, also when the tests run as root (CI does): root
 * without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH (util-linux `setpriv`). It stays the owner of
 * the checkout, so it loads the code wherever the checkout is — running as `nobody` instead
 * failed in a checkout under a folder only root may enter (issue 35).
 */
export function modesApply(command: string, args: string[]): { command: string; args: string[] } {
  if (process.getuid?.() !== 0) return { command, args };
  return { command: 'setpriv', args: ['--bounding-set', '-dac_override,-dac_read_search', '--', command, ...args] };
}
