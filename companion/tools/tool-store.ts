import type { Clock } from '../../shared/ports';
import type { ToolPermission, ToolServerConfig } from '../../shared/protocol/tools';
import type { SqliteDatabase } from '../db/open';

export interface StoredToolSetting {
  enabled: boolean;
  /** Undefined: the default for its source. */
  permission?: ToolPermission;
}

/**
 * The durable half of the tools' settings (docs/tools.md, migration 011): switched on or off
 * and the permission for everything per tool, permissions per conversation, and the user's
 * MCP servers. Each change is one statement, so it is whole or not at all.
 */
export class ToolStore {
  constructor(
    private readonly db: SqliteDatabase,
    private readonly clock: Clock,
  ) {}

  setting(name: string): StoredToolSetting | undefined {
    const row = this.db
      .prepare('SELECT enabled, permission FROM tool_settings WHERE name = ?')
      .get(name) as { enabled: number; permission: ToolPermission | null } | undefined;
    if (row === undefined) return undefined;
    return {
      enabled: row.enabled === 1,
      ...(row.permission === null ? {} : { permission: row.permission }),
    };
  }

  update(name: string, change: { enabled?: boolean; permission?: ToolPermission }): void {
    this.db
      .prepare(
        `INSERT INTO tool_settings (name, enabled, permission, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET
           enabled = COALESCE(?, enabled),
           permission = COALESCE(?, permission),
           updated_at = excluded.updated_at`,
      )
      .run(
        name,
        change.enabled === false ? 0 : 1,
        change.permission ?? null,
        this.clock.now(),
        change.enabled === undefined ? null : change.enabled ? 1 : 0,
        change.permission ?? null,
      );
  }

  conversationPermission(tool: string, conversation: string): ToolPermission | undefined {
    const row = this.db
      .prepare(
        'SELECT permission FROM tool_conversation_permissions WHERE tool = ? AND conversation = ?',
      )
      .get(tool, conversation) as { permission: ToolPermission } | undefined;
    return row?.permission;
  }

  setConversationPermission(tool: string, conversation: string, permission: ToolPermission): void {
    this.db
      .prepare(
        `INSERT INTO tool_conversation_permissions (tool, conversation, permission, updated_at)
         VALUES (?, ?, ?, ?)
         ON CONFLICT (tool, conversation) DO UPDATE SET
           permission = excluded.permission, updated_at = excluded.updated_at`,
      )
      .run(tool, conversation, permission, this.clock.now());
  }

  servers(): ToolServerConfig[] {
    const rows = this.db
      .prepare(
        'SELECT name, command, args, url, headers, requires_network FROM tool_servers ORDER BY created_at',
      )
      .all() as Array<{
      name: string;
      command: string | null;
      args: string;
      url: string | null;
      headers: string;
      requires_network: number | null;
    }>;
    return rows.map((row) => ({
      ...(row.command !== null
        ? { name: row.name, command: row.command, args: JSON.parse(row.args) as string[] }
        : {
            name: row.name,
            url: row.url ?? '',
            headers: JSON.parse(row.headers) as Record<string, string>,
          }),
      ...(row.requires_network === null ? {} : { requires_network: row.requires_network === 1 }),
    }));
  }

  hasServer(name: string): boolean {
    return this.db.prepare('SELECT 1 FROM tool_servers WHERE name = ?').get(name) !== undefined;
  }

  addServer(config: ToolServerConfig): void {
    this.db
      .prepare(
        `INSERT INTO tool_servers (name, command, args, url, headers, requires_network, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        config.name,
        config.command ?? null,
        JSON.stringify(config.args ?? []),
        config.url ?? null,
        JSON.stringify(config.headers ?? {}),
        config.requires_network === undefined ? null : config.requires_network ? 1 : 0,
        this.clock.now(),
      );
  }

  removeServer(name: string): boolean {
    return this.db.prepare('DELETE FROM tool_servers WHERE name = ?').run(name).changes > 0;
  }
}
