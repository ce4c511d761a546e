/**
 * PostgreSQL's migrations. Versions are SQLite's (store/migrations/): a PostgreSQL store at
 * version N has the schema a SQLite store has at N. The first one creates version 10 whole; a
 * later schema change adds `NNN-name.ts` here and in SQLite's list, with the same number.
 */
import type { SqlDb } from '../../sql.js';
import * as m010 from './010-schema.js';
import * as m011 from './011-fleet-hosts.js';
import * as m013 from './013-fleet-join-tokens.js';
import * as m014 from './014-workspace-host.js';

export interface PgMigration {
  version: number;
  name: string;
  up(db: SqlDb): void;
}

export const PG_MIGRATIONS: readonly PgMigration[] = [
  { version: 10, name: m010.name, up: m010.up },
  { version: 11, name: m011.name, up: m011.up },
  { version: 13, name: m013.name, up: m013.up },
  { version: 14, name: m014.name, up: m014.up },
];
