/**
 * Numbered migrations, applied in order. To change the schema add `NNN-name.ts` exporting
 * `name` and `up(db)`, and list it here with the next version number; never edit a shipped one.
 */
import type { Database } from 'better-sqlite3';
import * as m001 from './001-initial.js';
import * as m003 from './003-session-leases.js';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

// 002 is taken by the session settings migration (model and mode kept with the session).
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: m001.name, up: m001.up },
  { version: 3, name: m003.name, up: m003.up },
];
