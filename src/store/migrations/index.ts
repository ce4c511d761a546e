/**
 * Numbered migrations, applied in order. To change the schema add `NNN-name.ts` exporting
 * `name` and `up(db)`, and list it here with the next version number; never edit a shipped one.
 */
import type { Database } from 'better-sqlite3';
import * as m001 from './001-initial.js';
import * as m002 from './002-session-choices.js';
import * as m003 from './003-session-leases.js';
import * as m004 from './004-session-events.js';
import * as m005 from './005-session-branches.js';
import * as m006 from './006-caps-refs.js';
import * as m007 from './007-entry-tails.js';
import * as m008 from './008-wire-blocks.js';
import * as m009 from './009-workspace-own-profile.js';
import * as m010 from './010-deflated-entries.js';
import * as m011 from './011-fleet-hosts.js';
import * as m013 from './013-fleet-join-tokens.js';
import * as m014 from './014-workspace-host.js';

export interface Migration {
  version: number;
  name: string;
  up(db: Database): void;
}

export const MIGRATIONS: readonly Migration[] = [
  { version: 1, name: m001.name, up: m001.up },
  { version: 2, name: m002.name, up: m002.up },
  { version: 3, name: m003.name, up: m003.up },
  { version: 4, name: m004.name, up: m004.up },
  { version: 5, name: m005.name, up: m005.up },
  { version: 6, name: m006.name, up: m006.up },
  { version: 7, name: m007.name, up: m007.up },
  { version: 8, name: m008.name, up: m008.up },
  { version: 9, name: m009.name, up: m009.up },
  { version: 10, name: m010.name, up: m010.up },
  { version: 11, name: m011.name, up: m011.up },
  { version: 13, name: m013.name, up: m013.up },
  { version: 14, name: m014.name, up: m014.up },
];
