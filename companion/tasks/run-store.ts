import type { SqliteDatabase } from '../db/open';

/** A run's state in the history (migration 011, `task_runs`). */
export type TaskRunStatus = 'running' | 'succeeded' | 'failed' | 'skipped';

export interface TaskRunRecord {
  readonly taskId: string;
  /** The schedule's slot this run is for (epoch ms). */
  readonly slot: number;
  readonly startedAt: number;
  readonly finishedAt: number | null;
  readonly status: TaskRunStatus;
  /** Why it failed or was skipped. */
  readonly reason: string | null;
  readonly outputPath: string | null;
  /** The result's first line. */
  readonly summary: string | null;
  readonly pushedAt: number | null;
}

interface RunRow {
  task_id: string;
  slot: number;
  started_at: number;
  finished_at: number | null;
  status: TaskRunStatus;
  reason: string | null;
  output_path: string | null;
  summary: string | null;
  pushed_at: number | null;
}

const COLUMNS =
  'task_id, slot, started_at, finished_at, status, reason, output_path, summary, pushed_at';

/** Runs kept per task; older ones are dropped when a run is recorded. */
export const RUNS_KEPT_PER_TASK = 500;

/** The run history: one row per task and slot. */
export class TaskRunStore {
  private readonly statements;

  constructor(db: SqliteDatabase) {
    this.statements = {
      get: db.prepare<[string, number], RunRow>(
        `SELECT ${COLUMNS} FROM task_runs WHERE task_id = ? AND slot = ?`,
      ),
      begin: db.prepare(
        `INSERT INTO task_runs (task_id, slot, started_at, status) VALUES (?, ?, ?, 'running')
         ON CONFLICT (task_id, slot) DO UPDATE SET started_at = excluded.started_at,
           status = 'running', finished_at = NULL, reason = NULL`,
      ),
      finish: db.prepare(
        `UPDATE task_runs SET status = ?, finished_at = ?, reason = ?, output_path = ?, summary = ?
         WHERE task_id = ? AND slot = ?`,
      ),
      pushed: db.prepare('UPDATE task_runs SET pushed_at = ? WHERE task_id = ? AND slot = ?'),
      list: db.prepare<[string, number, number], RunRow>(
        `SELECT ${COLUMNS} FROM task_runs WHERE task_id = ? AND slot < ?
         ORDER BY slot DESC LIMIT ?`,
      ),
      prune: db.prepare(
        `DELETE FROM task_runs WHERE task_id = ? AND slot <
           (SELECT slot FROM task_runs WHERE task_id = ? ORDER BY slot DESC LIMIT 1 OFFSET ?)`,
      ),
    };
  }

  get(taskId: string, slot: number): TaskRunRecord | undefined {
    const row = this.statements.get.get(taskId, slot);
    return row === undefined ? undefined : toRecord(row);
  }

  /** Marks the slot's run as started (again, after a crash cut the first try short). */
  begin(taskId: string, slot: number, at: number): void {
    this.statements.begin.run(taskId, slot, at);
  }

  finish(
    taskId: string,
    slot: number,
    outcome: {
      status: Exclude<TaskRunStatus, 'running'>;
      at: number;
      reason?: string;
      outputPath?: string;
      summary?: string;
    },
  ): void {
    this.statements.finish.run(
      outcome.status,
      outcome.at,
      outcome.reason ?? null,
      outcome.outputPath ?? null,
      outcome.summary ?? null,
      taskId,
      slot,
    );
    this.statements.prune.run(taskId, taskId, RUNS_KEPT_PER_TASK - 1);
  }

  markPushed(taskId: string, slot: number, at: number): void {
    this.statements.pushed.run(at, taskId, slot);
  }

  /** Newest first, slots before `before` (a cursor), at most `limit`. */
  list(taskId: string, limit: number, before = Number.MAX_SAFE_INTEGER): TaskRunRecord[] {
    return this.statements.list.all(taskId, before, limit).map(toRecord);
  }
}

function toRecord(row: RunRow): TaskRunRecord {
  return {
    taskId: row.task_id,
    slot: row.slot,
    startedAt: row.started_at,
    finishedAt: row.finished_at,
    status: row.status,
    reason: row.reason,
    outputPath: row.output_path,
    summary: row.summary,
    pushedAt: row.pushed_at,
  };
}
