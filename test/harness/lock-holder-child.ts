/**
 * Another process holding a store's write lock (recorder-outage.test.ts): it opens the database
 * file, runs BEGIN IMMEDIATE, prints `locked`, then obeys lines on stdin:
 *   `delete <session id>`: deletes that session inside its transaction (its rows cascade);
 *   `commit`: commits, prints `released` and exits.
 * Usage: lock-holder-child.ts <database file>
 */
import Database from 'better-sqlite3';
import { createInterface } from 'node:readline';

const db = new Database(process.argv[2]!);
db.pragma('foreign_keys = ON');
db.exec('BEGIN IMMEDIATE');
process.stdout.write('locked\n');
const lines = createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const [cmd, arg] = line.trim().split(' ');
  if (cmd === 'delete') {
    db.prepare('DELETE FROM sessions WHERE id = ?').run(arg);
    process.stdout.write('deleted\n');
  } else if (cmd === 'commit') {
    db.exec('COMMIT');
    db.close();
    process.stdout.write('released\n');
    lines.close();
    process.exit(0);
  }
});
