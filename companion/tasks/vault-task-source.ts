import { readFile, stat } from 'node:fs/promises';
import { basename, join } from 'node:path';
import type { Clock } from '../../shared/ports';
import { compareCodeUnits } from '../../shared/protocol/json';
import { reminderDeepLink } from '../../shared/reminders/deep-link';
import { readTaskFile } from '../../shared/tasks';
import type { TaskDefinition, TaskFileRead, TaskProblem } from '../../shared/tasks';
import type { Logger } from '../logging';
import type { ReminderSource, ScheduledDefinition, UnresolvedReminder } from '../reminders';
import { isConflictCopy } from '../vault/conflict-copies';
import type { VaultExcludes } from '../vault/exclude-settings';
import type { VaultChange, VaultChangeFeed } from '../vault/vault-change';
import { replanOnVaultChange } from '../vault/replan-on-change';
import { walkVault } from '../vault/vault-walk';

/** A task file is a few hundred bytes; larger files are not read as tasks. */
export const MAX_TASK_FILE_BYTES = 256 * 1024;

/** A task file that cannot run, with every problem, each naming its field and line. */
export interface InvalidTaskFile {
  readonly id: string;
  readonly name: string;
  readonly path: string;
  readonly problems: readonly TaskProblem[];
}

export interface VaultTaskSourceOptions {
  readonly vault: string;
  readonly defaultZone: string;
  readonly clock: Clock;
  /** Whether a language model is configured (prompt tasks need one). */
  readonly llm: boolean;
  readonly excludes?: VaultExcludes;
  readonly logger?: Logger;
}

/**
 * The task scheduler's source: every note with `type: task` (docs/tasks.md), wherever the user
 * moved it, read again when the vault change feed says it changed. A file that does not check
 * out is listed (`invalid()`, and on the task scheduler's missed list as `unresolved`) with
 * each problem's field and line, and not scheduled. The same id in two files (a copied file,
 * a sync conflict copy) is one task: the original wins, so nothing runs twice.
 */
export class VaultTaskSource implements ReminderSource {
  private readonly byPath = new Map<string, TaskFileRead>();

  constructor(private readonly options: VaultTaskSourceOptions) {}

  async load(): Promise<void> {
    const { files } = await walkVault(
      this.options.vault,
      this.options.excludes ?? { excludes: () => false },
    );
    for (const file of files) if (file.kind === 'markdown') await this.refreshFile(file.path);
  }

  /** Re-reads one file; returns the ids of tasks that came, changed or went with it. */
  async refreshFile(path: string, bytes?: Buffer | null): Promise<string[]> {
    if (!path.toLowerCase().endsWith('.md') || this.options.excludes?.excludes(path)) return [];
    const text = bytes ? bytes.toString('utf8') : await this.read(path);
    const before = this.idAt(path);
    const read =
      text === undefined || !mentionsTask(text)
        ? undefined
        : readTaskFile(path, text, {
            defaultZone: this.options.defaultZone,
            now: this.options.clock.now(),
            llm: this.options.llm,
          });
    if (read === undefined || read.kind === 'not-a-task') this.byPath.delete(path);
    else this.byPath.set(path, read);
    const after = this.idAt(path);
    return [...new Set([before, after].filter((id): id is string => id !== undefined))];
  }

  removeFile(path: string): string[] {
    const affected: string[] = [];
    for (const known of [...this.byPath.keys()]) {
      if (known === path || known.startsWith(`${path}/`)) {
        const id = this.idAt(known);
        this.byPath.delete(known);
        if (id !== undefined) affected.push(id);
      }
    }
    return affected;
  }

  applyChange(change: VaultChange): Promise<string[]> {
    if (change.type === 'upsert') return this.refreshFile(change.path, change.bytes);
    return Promise.resolve(this.removeFile(change.path));
  }

  /** Every runnable task, one per id. */
  tasks(): TaskDefinition[] {
    const chosen = new Map<string, TaskDefinition>();
    for (const path of this.orderedPaths()) {
      const read = this.byPath.get(path)!;
      if (read.kind === 'task' && !chosen.has(read.task.id)) chosen.set(read.task.id, read.task);
    }
    return [...chosen.values()];
  }

  task(id: string): TaskDefinition | undefined {
    return this.tasks().find((task) => task.id === id);
  }

  /** Task files that cannot run, by path. */
  invalid(): InvalidTaskFile[] {
    const list: InvalidTaskFile[] = [];
    for (const path of this.orderedPaths()) {
      const read = this.byPath.get(path)!;
      if (read.kind === 'invalid') {
        list.push({ id: read.id, name: read.name, path, problems: read.problems });
      }
    }
    return list;
  }

  all(): { reminders: ScheduledDefinition[]; unresolved: UnresolvedReminder[] } {
    return {
      reminders: this.tasks().map((task) => this.toDefinition(task)),
      unresolved: this.unresolved(),
    };
  }

  get(ids: readonly string[]): ScheduledDefinition[] {
    const wanted = new Set(ids);
    return this.tasks()
      .filter((task) => wanted.has(task.id))
      .map((task) => this.toDefinition(task));
  }

  unresolved(): UnresolvedReminder[] {
    return this.invalid().map((file) => ({
      id: file.id,
      title: file.name,
      path: file.path,
      line: file.problems[0]?.line ?? 1,
      detail: file.problems
        .map((problem) => `${problem.field} (line ${problem.line ?? 1}): ${problem.message}`)
        .join('; '),
    }));
  }

  /** What the durable scheduler plans for a task: disabled tasks are `cancelled`, so never due. */
  private toDefinition(task: TaskDefinition): ScheduledDefinition {
    const zone = task.timezone;
    const schedule =
      task.schedule.kind === 'once'
        ? { kind: 'once' as const, at: task.schedule.at, zone }
        : task.schedule.kind === 'rrule'
          ? {
              kind: 'recurring' as const,
              rrule: task.schedule.rrule,
              start: task.schedule.start,
              zone,
            }
          : { kind: 'cron' as const, expression: task.schedule.expression, zone };
    return {
      id: task.id,
      title: task.name,
      path: task.path,
      schedule,
      status: task.enabled ? 'active' : 'cancelled',
      taskChecked: false,
      deepLink: reminderDeepLink(basename(this.options.vault), task.output),
    };
  }

  /** Originals before conflict copies, then by path: the first file of an id wins. */
  private orderedPaths(): string[] {
    return [...this.byPath.keys()].sort(
      (a, b) => Number(isConflictCopy(a)) - Number(isConflictCopy(b)) || compareCodeUnits(a, b),
    );
  }

  private idAt(path: string): string | undefined {
    const read = this.byPath.get(path);
    if (read === undefined || read.kind === 'not-a-task') return undefined;
    return read.kind === 'task' ? read.task.id : read.id;
  }

  private async read(path: string): Promise<string | undefined> {
    const absolute = join(this.options.vault, path);
    try {
      const info = await stat(absolute);
      if (!info.isFile() || info.size > MAX_TASK_FILE_BYTES) return undefined;
      return await readFile(absolute, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
      this.options.logger?.warn(
        { err: { message: (error as Error).message } },
        'a task file could not be read',
      );
      return undefined;
    }
  }
}

/** A cheap look before parsing: only notes that say `type: task` are parsed as tasks. */
function mentionsTask(text: string): boolean {
  return /^type\s*:\s*["']?task["']?\s*$/m.test(text.slice(0, 4096));
}

/** Follows the vault change feed: each changed file is re-read and its tasks re-planned. */
export function connectVaultTasks(
  feed: VaultChangeFeed,
  source: VaultTaskSource,
  scheduler: { replan(ids?: readonly string[]): Promise<void> },
  logger: Logger,
  /** Changes received before this settles wait for it (e.g. the scheduler's start). */
  ready: Promise<unknown> = Promise.resolve(),
): { close(): Promise<void> } {
  return replanOnVaultChange(feed, { name: 'tasks', source }, scheduler, logger, ready);
}
