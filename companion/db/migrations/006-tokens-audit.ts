import type { Migration } from '../migrate';

/*
 * Named API tokens with scopes, and the audit log (docs/clients.md).
 *
 * - `api_tokens`: tokens made with `cairn-companion token create`. Only the sha256 of a token is
 *   stored; the token itself is printed once. `scopes` is a comma-separated subset of
 *   `read,write,admin`. The token from the data folder's `token` file (or `CAIRN_TOKEN`) is not
 *   here: it is the owner's and has every scope.
 * - `audit_log`: one row per write or tool call: when, which token (by name), which client,
 *   what action, which vault path, how it ended. Never note text, never a token. Rows older than
 *   90 days are pruned. `id` orders rows (newest first = highest id) and is the page cursor.
 */
export const tokensAndAudit: Migration = {
  version: 6,
  name: 'tokens-audit',
  up: `
    CREATE TABLE api_tokens (
      name        TEXT PRIMARY KEY NOT NULL,
      sha256      BLOB NOT NULL UNIQUE,
      scopes      TEXT NOT NULL,
      created_at  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE audit_log (
      id          INTEGER PRIMARY KEY AUTOINCREMENT,
      at          INTEGER NOT NULL,
      token_name  TEXT NOT NULL,
      client      TEXT NOT NULL,
      action      TEXT NOT NULL,
      target      TEXT,
      outcome     TEXT NOT NULL,
      error_code  TEXT
    ) STRICT;
    CREATE INDEX audit_log_at ON audit_log (at);
  `,
};
