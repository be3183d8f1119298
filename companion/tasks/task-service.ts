import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseFrontMatter, updateFrontMatter } from '../../shared/markdown/front-matter';
import { newNoteId } from '../../shared/markdown/note-id';
import type { Clock } from '../../shared/ports';
import { formatInZone } from '../../shared/reminders/local-time';
import {
  ACTION_INPUT_KEY,
  buildTaskFile,
  checkTaskFields,
  DEFAULT_TASKS_FOLDER,
  taskNameProblem,
} from '../../shared/tasks';
import type { TaskDefinition, TaskFields } from '../../shared/tasks';
import type {
  InvalidTask,
  Task,
  TaskCreate,
  TaskPatch,
  TaskRun,
  TaskRunsResponse,
} from '../../shared/protocol/tasks';
import { currentPathRules, describePathRules, pathAllowed } from '../auth/path-rules';
import { ApiHttpError } from '../http/api-error';
import {
  contentHash,
  createVaultFile,
  editVaultFile,
  removeVaultFile,
  VaultFileExistsError,
  VaultWriteError,
} from '../vault/atomic-write';
import type { TaskRunRecord, TaskRunStore } from './run-store';
import type { VaultTaskSource } from './vault-task-source';

/** A one-off more than this far in the past is refused: it would never run. */
const PAST_TOLERANCE_MS = 60_000;

export interface TaskServiceDeps {
  readonly vault: string;
  readonly clock: Clock;
  readonly defaultZone: string;
  /** Whether a language model is configured (prompt tasks need one). */
  readonly llm: boolean;
  readonly source: VaultTaskSource;
  readonly runs: TaskRunStore;
  /** The task scheduler: when a task runs next, and re-planning after a write. */
  readonly scheduler: {
    nextFire(id: string): number | undefined;
    replan(ids?: readonly string[]): Promise<void>;
  };
  /** The vault index reads the written file before the answer (so search sees it). */
  readonly afterWrite?: (paths: readonly string[]) => Promise<void>;
  readonly folder?: string;
}

/**
 * The task API over the vault (docs/tasks.md): create writes a task file, patch changes only
 * the keys given (checked as a whole before anything is written), delete removes the file
 * (its runs note stays). After each write the file is re-read and its task re-planned before
 * the answer, so `next_run` is already right.
 */
export class TaskService {
  constructor(private readonly deps: TaskServiceDeps) {}

  list(): { tasks: Task[]; invalid: InvalidTask[] } {
    return {
      tasks: this.deps.source
        .tasks()
        .filter((task) => pathAllowed(currentPathRules(), task.path))
        .sort((a, b) => a.name.localeCompare(b.name))
        .map((task) => this.view(task)),
      invalid: this.deps.source
        .invalid()
        .filter((file) => pathAllowed(currentPathRules(), file.path))
        .map((file) => ({
          id: file.id,
          name: file.name,
          path: file.path,
          problems: file.problems.map((problem) => ({
            field: problem.field,
            line: problem.line ?? 1,
            message: problem.message,
          })),
        })),
    };
  }

  get(id: string): Task {
    return this.view(this.find(id));
  }

  async create(body: TaskCreate): Promise<Task> {
    refuseFolderLimitedToken('create');
    const nameProblem = taskNameProblem(body.name);
    if (nameProblem !== null)
      throw new ApiHttpError('VALIDATION_ERROR', `name: ${nameProblem}`, 'name');
    const now = this.deps.clock.now();
    const check = this.check(body);
    if (check.schedule.kind === 'once' && check.schedule.at < now - PAST_TOLERANCE_MS) {
      throw new ApiHttpError(
        'VALIDATION_ERROR',
        `schedule: ${formatInZone(check.schedule.at, check.timezone)} is in the past; a one-off task must be in the future`,
        'schedule',
      );
    }
    const folder = this.deps.folder ?? DEFAULT_TASKS_FOLDER;
    const path = `${folder}/${body.name.trim()}.md`;
    const id = newNoteId(randomBytes);
    const text = buildTaskFile({
      id,
      name: body.name.trim(),
      scheduleText: check.scheduleText,
      timezone: check.timezone,
      enabled: check.enabled,
      action: check.action,
      input: check.input,
      filters: check.filters,
      deliver: check.deliver,
      ...(check.output === undefined ? {} : { output: check.output }),
      ...(check.start === undefined ? {} : { start: check.start }),
      created: formatInZone(now, check.timezone),
    });
    try {
      await createVaultFile(this.deps.vault, path, text);
    } catch (error) {
      if (error instanceof VaultFileExistsError) {
        throw new ApiHttpError(
          'CONFLICT',
          `a task named "${body.name.trim()}" exists already (${path})`,
          'name',
        );
      }
      throw error;
    }
    await this.reread(path, [id]);
    return this.get(id);
  }

  async patch(id: string, patch: TaskPatch): Promise<Task> {
    const task = this.find(id);
    refuseFolderLimitedToken('change');
    const current = await readFile(join(this.deps.vault, task.path), 'utf8');
    const parsed = parseFrontMatter(current);
    if (!parsed.ok)
      throw new ApiHttpError('CONFLICT', `${task.path}: its front matter cannot be read`, 'path');
    const changes: Record<string, unknown> = { ...patch };
    // Check the task as it would be, before anything is written.
    this.check({ ...(parsed.data as TaskFields), ...changes });
    const edited = await editVaultFile(this.deps.vault, task.path, (text) => {
      const updated = updateFrontMatter(text, changes);
      if (!updated.ok) {
        throw new VaultWriteError(
          'CONFLICT',
          `${task.path}: ${updated.error.message}`,
          updated.error.field ?? 'path',
        );
      }
      return updated.text;
    });
    await this.reread(edited.path, [id]);
    return this.get(id);
  }

  /** Removes the task file (only if unchanged since read); the runs note and history stay. */
  async remove(id: string): Promise<Task> {
    const task = this.find(id);
    const view = this.view(task);
    const current = await readFile(join(this.deps.vault, task.path));
    await removeVaultFile(this.deps.vault, task.path, contentHash(current), this.deps.clock);
    await this.reread(task.path, [id]);
    return { ...view, next_run: null };
  }

  runs(id: string, limit: number, cursor?: string): TaskRunsResponse {
    const task = this.find(id);
    let before: number | undefined;
    if (cursor !== undefined) {
      before = Number(cursor);
      if (!Number.isSafeInteger(before)) {
        throw new ApiHttpError(
          'VALIDATION_ERROR',
          'cursor is not one this server handed out',
          'cursor',
        );
      }
    }
    const rows = this.deps.runs.list(task.id, limit + 1, before);
    const page = rows.slice(0, limit);
    return {
      runs: page.map((row) => runView(row, task.timezone)),
      ...(rows.length > limit ? { next_cursor: String(page[page.length - 1]!.slot) } : {}),
    };
  }

  private find(id: string): TaskDefinition {
    // A token limited to folders (auth/path-rules.ts) finds no task filed outside them.
    const rules = currentPathRules();
    const task = this.deps.source.task(id);
    if (task !== undefined && pathAllowed(rules, task.path)) return task;
    const invalid = this.deps.source
      .invalid()
      .find((file) => file.id === id && pathAllowed(rules, file.path));
    if (invalid !== undefined) {
      const first = invalid.problems[0];
      throw new ApiHttpError(
        'CONFLICT',
        `${invalid.path}:${first?.line ?? 1}: the task file cannot run (${first?.field}: ${first?.message}); fix it in the note`,
        first?.field,
      );
    }
    throw new ApiHttpError('NOT_FOUND', `no task with id ${id}`);
  }

  private check(fields: TaskFields) {
    const check = checkTaskFields(fields, {
      defaultZone: this.deps.defaultZone,
      now: this.deps.clock.now(),
      llm: this.deps.llm,
    });
    if (!check.ok) {
      const first = check.problems[0]!;
      throw new ApiHttpError('VALIDATION_ERROR', `${first.field}: ${first.message}`, first.field);
    }
    return check.value;
  }

  private async reread(path: string, ids: readonly string[]): Promise<void> {
    const changed = await this.deps.source.refreshFile(path);
    await this.deps.scheduler.replan([...new Set([...ids, ...changed])]);
    await this.deps.afterWrite?.([path]).catch(() => undefined);
  }

  private view(task: TaskDefinition): Task {
    const next = this.deps.scheduler.nextFire(task.id);
    const [last] = this.deps.runs.list(task.id, 1);
    return {
      id: task.id,
      name: task.name,
      path: task.path,
      schedule: task.scheduleText,
      timezone: task.timezone,
      enabled: task.enabled,
      action: task.action,
      [ACTION_INPUT_KEY[task.action]]: task.input,
      ...(task.filters.folder === undefined ? {} : { folder: task.filters.folder }),
      ...(task.filters.tag === undefined ? {} : { tag: task.filters.tag }),
      ...(task.filters.within === undefined ? {} : { within: task.filters.within }),
      deliver: [...task.deliver],
      output: task.output,
      ...(task.builtin === undefined ? {} : { builtin: task.builtin }),
      next_run: next === undefined ? null : formatInZone(next, task.timezone),
      last_run: last === undefined ? null : runView(last, task.timezone),
    };
  }
}

function runView(row: TaskRunRecord, zone: string): TaskRun {
  return {
    slot: formatInZone(row.slot, zone),
    started_at: formatInZone(row.startedAt, zone),
    finished_at: row.finishedAt === null ? null : formatInZone(row.finishedAt, zone),
    duration_ms: row.finishedAt === null ? null : Math.max(0, row.finishedAt - row.startedAt),
    status: row.status,
    reason: row.reason,
    output_path: row.outputPath,
    summary: row.summary,
  };
}

/**
 * A task runs later, with no request around it, over the whole vault (its search, its digest):
 * made or changed by a token limited to some folders (auth/path-rules.ts), it would read outside
 * them into a note that token can read. Such a token may list and remove tasks in its folders.
 */
function refuseFolderLimitedToken(what: 'create' | 'change'): void {
  const rules = currentPathRules();
  if (rules === undefined) return;
  throw new ApiHttpError(
    'FORBIDDEN',
    `a scheduled task runs over the whole vault, so a token limited to ${describePathRules(rules)} ` +
      `cannot ${what} one; use a token without --paths`,
  );
}
