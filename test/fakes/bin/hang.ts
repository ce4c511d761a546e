/** Answers initialize, then never answers anything and never exits on its own (not even on stdin EOF). */
import { INIT_RESULT, readMessages, respond } from './raw-lib.js';

readMessages(
  (msg) => {
    if (msg.method === 'initialize') respond(msg.id, INIT_RESULT);
  },
  () => {},
);
setInterval(() => {}, 1 << 30);
