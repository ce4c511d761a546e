/**
 * Persistent capability references for the caps face (src/caps/refs.ts): one row per minted
 * reference. Only the SHA-256 of the 256-bit secret is kept, never the secret; a child narrows
 * its parent (methods ⊆ parent's, expiry ≤ parent's) and revoking a row revokes its descendants.
 * `caps_host` holds this home's host key (the authority part of `ocapn://` URIs).
 */
import type { Database } from 'better-sqlite3';

export const name = 'caps-refs';

export function up(db: Database): void {
  db.exec(`
    CREATE TABLE caps_refs (
      id          TEXT PRIMARY KEY,             -- public handle (list, revoke); not a secret
      hash        TEXT NOT NULL UNIQUE,         -- hex SHA-256 of the secret
      kind        TEXT NOT NULL,                -- agent | session | permission | dataspace
      facet       TEXT NOT NULL,                -- controller | reader | responder | launcher | observer
      target      TEXT NOT NULL,                -- workspace path, session id, session id + request key
      methods     TEXT NOT NULL,                -- JSON array of the methods this reference allows
      expires_at  INTEGER,                      -- epoch ms; NULL: never
      parent_id   TEXT REFERENCES caps_refs(id) ON DELETE CASCADE,
      label       TEXT,
      created_at  INTEGER NOT NULL,
      revoked_at  INTEGER
    );
    CREATE INDEX caps_refs_parent ON caps_refs(parent_id);
    CREATE TABLE caps_host (
      id        INTEGER PRIMARY KEY CHECK (id = 1),
      host_key  TEXT NOT NULL
    );
  `);
}
