/**
 * SES lockdown for the caps face: imported first by every module of src/caps that uses @endo.
 * CapTP, Far and Exo need it (without it @endo/eventual-send fails at load: `assert is not
 * defined`), and it is what makes inherited methods on exported objects harmless. Full lockdown,
 * not unsafe-fast: see captp-notes.md (the round trip is 2–3× slower, still well under 1 ms) and
 * test/caps/lockdown.test.ts (the rest of Talaria — SQLite, the ACP SDK, zod, hono, ws — works
 * in the same locked-down process, so no worker is needed).
 */
import '@endo/init';
// Then: the errors CapTP sends to peers must not reach stdout (sent-errors.ts says why).
import './sent-errors.js';
