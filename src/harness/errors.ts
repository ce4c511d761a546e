/**
 * The error codes a face (server, CLI, caps) switches on: one per layer, combined here, the first
 * layer that sees both. Every one is thrown as a TalariaError (the one base class).
 */
import { PROTOCOL_ERROR_CODES, type ProtocolErrorCode } from '../protocol/errors.js';
import { STORE_ERROR_CODES, type StoreErrorCode } from '../store/errors.js';

export type TalariaErrorCode = ProtocolErrorCode | StoreErrorCode;

/** Every TalariaErrorCode once (the two layers share invalid_argument and not_found). */
export const TALARIA_ERROR_CODES: readonly TalariaErrorCode[] = [
  ...new Set<TalariaErrorCode>([...PROTOCOL_ERROR_CODES, ...STORE_ERROR_CODES]),
];
