import type { Migration } from '../migrate';

/*
 * The tools the chat may use (docs/tools.md).
 *
 * - `tool_settings`: per tool (Cairn's own by name, a server's as `server__tool`), whether it is
 *   switched on and the permission for everything (NULL: the default, allow for Cairn's own
 *   tools, ask for a server's).
 * - `tool_conversation_permissions`: a permission for one conversation (its vault path).
 *   Session permissions live in memory only and end when the companion stops.
 * - `tool_servers`: the user's MCP servers: a command with arguments (stdio) or a URL with
 *   headers (Streamable HTTP). Header values may be credentials: they stay in the data folder.
 *   `requires_network` overrides the guess from the URL (NULL: guess).
 * - `audit_log` gains the tool's source, the run's duration and the runner's refusal reason.
 */
export const toolTables: Migration = {
  version: 12,
  name: 'tools',
  up: `
    CREATE TABLE tool_settings (
      name        TEXT PRIMARY KEY NOT NULL,
      enabled     INTEGER NOT NULL DEFAULT 1,
      permission  TEXT CHECK (permission IN ('allow', 'ask', 'deny')),
      updated_at  INTEGER NOT NULL
    ) STRICT;

    CREATE TABLE tool_conversation_permissions (
      tool          TEXT NOT NULL,
      conversation  TEXT NOT NULL,
      permission    TEXT NOT NULL CHECK (permission IN ('allow', 'ask', 'deny')),
      updated_at    INTEGER NOT NULL,
      PRIMARY KEY (tool, conversation)
    ) STRICT;

    CREATE TABLE tool_servers (
      name        TEXT PRIMARY KEY NOT NULL,
      command     TEXT,
      args        TEXT NOT NULL DEFAULT '[]',
      url         TEXT,
      headers     TEXT NOT NULL DEFAULT '{}',
      requires_network INTEGER,
      created_at  INTEGER NOT NULL,
      CHECK ((command IS NULL) <> (url IS NULL))
    ) STRICT;

    ALTER TABLE audit_log ADD COLUMN source TEXT;
    ALTER TABLE audit_log ADD COLUMN duration_ms INTEGER;
    ALTER TABLE audit_log ADD COLUMN reason TEXT;
  `,
};
