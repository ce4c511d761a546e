/** Local errors of the registry client and installer: a string code each, a message that says what to do. */
import { TalariaError } from '../../protocol/errors.js';

export type RegistryErrorCode =
  | 'registry_unreachable'
  | 'registry_invalid'
  | 'agent_unknown'
  | 'no_distribution'
  | 'checksum_mismatch'
  | 'install_failed'
  | 'not_installed';

export class RegistryError extends TalariaError<RegistryErrorCode> {}
