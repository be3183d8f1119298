import type { AuditClient, AuditEntry, AuditOutcome } from '../../shared/protocol/audit';
import type { Clock } from '../../shared/ports';
import type { SqliteDatabase } from '../db/open';
import { PreparedStatements } from '../db/statements';
import type { ToolRun } from '../../shared/protocol/tools';

/** docs/clients.md: 90 days are kept. */
export const AUDIT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;
/** Pruning runs with a write at most this often (one indexed DELETE). */
const PRUNE_EVERY_MS = 60 * 60 * 1000;

export interface AuditRecord {
  tokenName: string;
  client: AuditClient;
  action: string;
  /** Vault path, when the action has one. Never note text. */
  path?: string | undefined;
  outcome: AuditOutcome;
  errorCode?: string | undefined;
  /** Tool runs (docs/tools.md): `cairn` or the MCP server's name. */
  source?: string | undefined;
  durationMs?: number | undefined;
  /** The tool runner's refusal reason (`permission_denied`, `offline_mode`, …). */
  reason?: string | undefined;
}

interface AuditRow {
  id: number;
  at: number;
  token_name: string;
  client: string;
  action: string;
  target: string | null;
  outcome: string;
  error_code: string | null;
}

export class AuditCursorError extends Error {
  override name = 'AuditCursorError';
}

/**
 * The audit log (docs/clients.md) in the companion database: every write and tool call, who (token
 * name) and from where (client), what, on which path, how it ended. Records carry no note text
 * and no token by construction: there is no column for either.
 */
export class AuditLog {
  private lastPrune = Number.NEGATIVE_INFINITY;
  private readonly statements: PreparedStatements;

  constructor(
    db: SqliteDatabase,
    private readonly clock: Clock,
  ) {
    this.statements = new PreparedStatements(db);
  }

  record(entry: AuditRecord): void {
    const now = this.clock.now();
    this.statements
      .prepare(
        `INSERT INTO audit_log (at, token_name, client, action, target, outcome, error_code,
                                source, duration_ms, reason) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        now,
        entry.tokenName,
        entry.client,
        entry.action,
        entry.path ?? null,
        entry.outcome,
        entry.errorCode ?? null,
        entry.source ?? null,
        entry.durationMs === undefined ? null : Math.round(entry.durationMs),
        entry.reason ?? null,
      );
    if (now - this.lastPrune >= PRUNE_EVERY_MS) this.prune();
  }

  /** Deletes entries older than the retention window; returns how many. */
  prune(): number {
    const now = this.clock.now();
    this.lastPrune = now;
    return this.statements
      .prepare('DELETE FROM audit_log WHERE at < ?')
      .run(now - AUDIT_RETENTION_MS).changes;
  }

  /** Tool runs (rows with a source), newest first (docs/tools.md `GET /api/v1/tools/runs`). */
  toolRuns(limit: number): ToolRun[] {
    const rows = this.statements
      .prepare(
        `SELECT id, at, token_name, client, action, outcome, error_code, source, duration_ms, reason
           FROM audit_log WHERE source IS NOT NULL AND at >= ? ORDER BY id DESC LIMIT ?`,
      )
      .all(this.clock.now() - AUDIT_RETENTION_MS, limit) as Array<
      Omit<AuditRow, 'target'> & {
        source: string;
        duration_ms: number | null;
        reason: string | null;
      }
    >;
    return rows.map((row) => ({
      id: row.id,
      at: new Date(row.at).toISOString(),
      tool: row.action,
      source: row.source,
      token: row.token_name,
      client: row.client,
      outcome: row.outcome,
      reason: row.reason,
      error_code: row.error_code,
      duration_ms: row.duration_ms,
    }));
  }

  /** Newest first; `cursor` is the previous page's `next_cursor`. */
  list(query: { limit: number; cursor?: string | undefined }): {
    entries: AuditEntry[];
    next_cursor: string | null;
  } {
    const before =
      query.cursor === undefined ? Number.MAX_SAFE_INTEGER : decodeCursor(query.cursor);
    const rows = this.statements
      .prepare(
        `SELECT id, at, token_name, client, action, target, outcome, error_code
           FROM audit_log WHERE id < ? AND at >= ? ORDER BY id DESC LIMIT ?`,
      )
      .all(before, this.clock.now() - AUDIT_RETENTION_MS, query.limit + 1) as AuditRow[];
    const page = rows.slice(0, query.limit);
    const last = page.at(-1);
    return {
      entries: page.map(toEntry),
      next_cursor: rows.length > query.limit && last !== undefined ? `a${last.id}` : null,
    };
  }
}

function decodeCursor(cursor: string): number {
  const match = /^a([1-9][0-9]{0,15})$/.exec(cursor);
  if (match?.[1] === undefined)
    throw new AuditCursorError(`cursor "${cursor}" is not one this log handed out`);
  return Number(match[1]);
}

function toEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    at: new Date(row.at).toISOString(),
    token: row.token_name,
    client: row.client as AuditClient,
    action: row.action,
    path: row.target,
    outcome: row.outcome as AuditOutcome,
    error_code: row.error_code,
  };
}
