/** pi's session-log reader moved to the provider layer (one copy); re-exported for the matrix. */
export { lastPiError } from '../../../src/providers/quirks/pi.js';
