/** Writes to stderr and exits 2 as soon as it receives initialize. */
import { readMessages } from './raw-lib.js';

readMessages((msg) => {
  if (msg.method === 'initialize') {
    process.stderr.write('fatal: config.yaml is invalid (line 3)\n');
    process.exit(2);
  }
});
