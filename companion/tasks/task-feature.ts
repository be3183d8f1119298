import type { DigestSchedule } from '../../shared/digest';
import type { Clock } from '../../shared/ports';
import { formatInZone } from '../../shared/reminders/local-time';
import type { SqliteDatabase } from '../db/open';
import type { DigestService } from '../digest';
import { createLogger } from '../logging';
import type { Logger } from '../logging';
import { ReminderScheduler } from '../reminders';
import type { DeliveryTables, ReminderDeliverer, TimerPort } from '../reminders';
import type { HybridSearch, Summarizer } from '../search';
import type { VaultExcludes } from '../vault/exclude-settings';
import type { VaultChangeFeed } from '../vault/vault-change';
import { seedBuiltinDigest } from './builtin-digest';
import { TaskRunStore } from './run-store';
import { VaultTaskActions } from './task-actions';
import type { TaskActions } from './task-actions';
import { TaskRunner } from './task-runner';
import { TaskService } from './task-service';
import { connectVaultTasks, VaultTaskSource } from './vault-task-source';

/** The task scheduler's tables (migration 011). */
export const TASK_SCHEDULER_TABLES: DeliveryTables = {
  meta: 'task_scheduler_meta',
  plan: 'task_plan',
  deliveries: 'task_claims',
  missed: 'task_missed',
  actions: 'task_actions',
  completions: 'task_completions',
};

export interface TaskFeatureOptions {
  readonly vault: string;
  readonly db: SqliteDatabase;
  readonly clock: Clock;
  readonly defaultZone: string;
  /** Missed slots younger than this run on start; older ones are listed missed. */
  readonly graceMs: number;
  readonly summarizer?: Summarizer;
  readonly digest?: DigestService;
  /** The push sender (tasks that deliver `push`). */
  readonly push?: ReminderDeliverer;
  readonly excludes?: VaultExcludes;
  readonly logger?: Logger;
  readonly timer?: TimerPort;
  /** What runs a task; by default the companion's search, answers and digests. */
  readonly actions?: TaskActions;
  /** The index reads written files right away. */
  readonly afterWrite?: (paths: readonly string[]) => Promise<void>;
  /**
   * The slot the built-in weekly digest task is created with on the first start (`--digest`);
   * absent (digests off), it is not created. Once created the file is the truth.
   */
  readonly builtinDigest?: DigestSchedule;
}

/**
 * Scheduled tasks, put together (docs/tasks.md): the vault source, the run history, the runner,
 * the durable scheduler (the reminders' ReminderScheduler over the task tables, so tasks keep
 * its guarantees: claim before run, kill -9 safe, grace window, one run per slot), and the
 * service behind the routes, chat and MCP tools.
 */
export class TaskFeature {
  readonly source: VaultTaskSource;
  readonly runs: TaskRunStore;
  readonly scheduler: ReminderScheduler;
  readonly service: TaskService;
  private search: () => HybridSearch | undefined = () => undefined;
  private link: { close(): Promise<void> } | undefined;
  private running = false;

  constructor(private readonly options: TaskFeatureOptions) {
    const llm = options.summarizer !== undefined;
    this.source = new VaultTaskSource({
      vault: options.vault,
      defaultZone: options.defaultZone,
      clock: options.clock,
      llm,
      ...(options.excludes ? { excludes: options.excludes } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.runs = new TaskRunStore(options.db);
    const actions =
      options.actions ??
      new VaultTaskActions({
        search: () => this.search(),
        ...(options.summarizer ? { summarizer: options.summarizer } : {}),
        ...(options.digest ? { digest: options.digest } : {}),
      });
    const runner = new TaskRunner({
      vault: options.vault,
      clock: options.clock,
      runs: this.runs,
      task: (id) => this.source.task(id),
      actions,
      ...(options.push ? { push: options.push } : {}),
      ...(options.afterWrite ? { afterWrite: options.afterWrite } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.scheduler = new ReminderScheduler({
      db: options.db,
      clock: options.clock,
      source: this.source,
      deliverer: runner,
      graceMs: options.graceMs,
      tables: TASK_SCHEDULER_TABLES,
      lookbackMs: 0,
      ...(options.timer ? { timer: options.timer } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    this.service = new TaskService({
      vault: options.vault,
      clock: options.clock,
      defaultZone: options.defaultZone,
      llm,
      source: this.source,
      runs: this.runs,
      scheduler: {
        nextFire: (id) => this.scheduler.nextFire(id),
        // Before the scheduler starts (the companion waits for its first index scan), a task
        // written through the API is only read into the source: the start plans it.
        replan: (ids) => (this.running ? this.scheduler.replan(ids) : Promise.resolve()),
      },
      ...(options.afterWrite ? { afterWrite: options.afterWrite } : {}),
    });
  }

  /** The search tasks run on (buildApp's, once it exists). */
  useSearch(search: () => HybridSearch | undefined): void {
    this.search = search;
  }

  /** Reads the vault's tasks, starts the scheduler (running what is due), follows the feed. */
  async start(feed?: VaultChangeFeed): Promise<void> {
    const started = this.source.load().then(async () => {
      await this.seedDigest();
      const first = this.scheduler.start();
      this.running = true;
      return first;
    });
    if (feed) {
      this.link = connectVaultTasks(
        feed,
        this.source,
        this.scheduler,
        this.options.logger ?? createLogger('silent'),
        started,
      );
    }
    await started;
    this.options.logger?.info(
      { tasks: this.source.tasks().length, invalid: this.source.invalid().length },
      'task scheduler started',
    );
    this.logDigest();
  }

  private async seedDigest(): Promise<void> {
    const schedule = this.options.builtinDigest;
    if (schedule === undefined || this.options.digest === undefined) return;
    try {
      // No `afterWrite` for the new note: it waits for the change feed to go idle, and the feed
      // waits for this start (connectVaultTasks' `ready`), a deadlock. The feed's watcher reads it.
      await seedBuiltinDigest({
        vault: this.options.vault,
        db: this.options.db,
        source: this.source,
        schedule,
        zone: this.options.defaultZone,
        clock: this.options.clock,
        ...(this.options.logger ? { logger: this.options.logger } : {}),
      });
    } catch (error) {
      // A read-only vault: tasks still run; the next start tries again (nothing was recorded).
      this.options.logger?.error(
        { err: { message: (error as Error).message } },
        'the weekly digest task could not be created',
      );
    }
  }

  /** Where the weekly digest stands, once the first pass is through (said on every start). */
  private logDigest(): void {
    const logger = this.options.logger;
    if (logger === undefined || this.options.digest === undefined) return;
    const task = this.source.tasks().find((entry) => entry.builtin === 'digest');
    const next = task === undefined ? undefined : this.scheduler.nextFire(task.id);
    if (task !== undefined && task.enabled && next !== undefined) {
      logger.info(
        { path: task.path, next: formatInZone(next, task.timezone) },
        'digest schedule started',
      );
    } else {
      logger.info(
        { path: task?.path ?? null },
        'no weekly digest is scheduled (its task is off, deleted or never created)',
      );
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.link?.close();
    this.link = undefined;
    await this.scheduler.stop();
  }
}
