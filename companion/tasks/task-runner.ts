import { basename } from 'node:path';
import type { Clock } from '../../shared/ports';
import type { PushPayload } from '../../shared/protocol/push';
import { reminderDeepLink } from '../../shared/reminders/deep-link';
import { formatInZone } from '../../shared/reminders/local-time';
import {
  emptyRunsNote,
  firstLine,
  hasRunEntry,
  insertRunEntry,
  renderRunEntry,
} from '../../shared/tasks';
import type { TaskDefinition, TaskRunResult } from '../../shared/tasks';
import type { Logger } from '../logging';
import type { DeliveryOutcome, ReminderDeliverer, ReminderDelivery } from '../reminders';
import { createVaultFile, editVaultFile, VaultFileExistsError } from '../vault/atomic-write';
import type { TaskActions } from './task-actions';
import type { TaskRunStore } from './run-store';

/** The one "device" the task scheduler delivers to: running the task. */
export const RUNNER_ID = 'runner';
/** A push body is one line; longer ones are cut. */
const MAX_PUSH_BODY_CHARS = 200;
/** A task's push is worth showing for a day. */
const PUSH_TTL_SECONDS = 24 * 3600;

export interface TaskRunnerDeps {
  readonly vault: string;
  readonly clock: Clock;
  readonly runs: TaskRunStore;
  /** The task's current definition (the file may have changed since the slot was claimed). */
  readonly task: (id: string) => TaskDefinition | undefined;
  readonly actions: TaskActions;
  /** The push sender; absent, `push` delivery is skipped with a note in the history. */
  readonly push?: ReminderDeliverer;
  /** Called after each run (the vault write is read back into the index). */
  readonly afterWrite?: (paths: readonly string[]) => Promise<void>;
  readonly logger?: Logger;
}

/**
 * Runs a task's slot when the durable scheduler hands it over (the scheduler's output port,
 * companion/push/delivery-port.ts, with one "device": this runner). The scheduler has already
 * claimed (task, slot) in a committed transaction, so a slot is handed over once; after a
 * `kill -9` mid-run the claim is still open and the slot is handed over again on start. That
 * second run leaves one result: the note's entry carries the slot (runs-note.ts) and is not
 * written twice, and a push already recorded is not sent again.
 */
export class TaskRunner implements ReminderDeliverer {
  constructor(private readonly deps: TaskRunnerDeps) {}

  subscriptions(): readonly { readonly id: string }[] {
    return [{ id: RUNNER_ID }];
  }

  async deliver(delivery: ReminderDelivery): Promise<DeliveryOutcome> {
    const taskId = delivery.payload.reminder_id;
    const slot = Date.parse(delivery.payload.occurrence);
    const { runs, clock } = this.deps;
    const started = clock.now();
    try {
      runs.begin(taskId, slot, started);
      const task = this.deps.task(taskId);
      if (task === undefined || !task.enabled) {
        const reason =
          task === undefined ? 'the task file is gone or no longer valid' : 'the task is disabled';
        runs.finish(taskId, slot, { status: 'skipped', at: clock.now(), reason });
        return { kind: 'sent' };
      }
      let result: TaskRunResult;
      try {
        result = await this.deps.actions.run(task, slot);
      } catch (error) {
        const reason = (error as Error).message;
        runs.finish(taskId, slot, { status: 'failed', at: clock.now(), reason });
        this.deps.logger?.warn({ task: task.path, reason }, 'a scheduled task failed');
        return { kind: 'failed', reason };
      }
      const summary = firstLine(result.text).slice(0, MAX_PUSH_BODY_CHARS);
      const wrote = task.deliver.includes('note')
        ? await this.writeNote(task, slot, result)
        : false;
      const pushNote = task.deliver.includes('push')
        ? await this.push(task, slot, summary)
        : undefined;
      // Not awaited: the index follows the feed, which may be waiting for this very pass (the
      // scheduler's first pass runs before the feed hands the tasks subscriber anything).
      if (wrote) void this.deps.afterWrite?.([task.output]).catch(() => undefined);
      runs.finish(taskId, slot, {
        status: 'succeeded',
        at: clock.now(),
        ...(task.deliver.includes('note') ? { outputPath: task.output } : {}),
        summary,
        ...(pushNote === undefined ? {} : { reason: pushNote }),
      });
      this.deps.logger?.info({ task: task.path, ms: clock.now() - started }, 'scheduled task ran');
      return { kind: 'sent' };
    } catch (error) {
      // The vault write or the database failed: recorded when the database lets us, never thrown
      // at the scheduler (its port wants an outcome). Not retried: the next slot runs as usual.
      const reason = (error as Error).message;
      try {
        runs.finish(taskId, slot, { status: 'failed', at: clock.now(), reason });
      } catch {
        // The database is what failed; the claim stays open and the slot runs again on start.
      }
      this.deps.logger?.error({ err: { message: reason } }, 'a scheduled task could not finish');
      return { kind: 'failed', reason };
    }
  }

  /** Appends the run's entry to the task's note, newest first; false when it was already there. */
  private async writeNote(
    task: TaskDefinition,
    slot: number,
    result: TaskRunResult,
  ): Promise<boolean> {
    const entry = renderRunEntry(slot, task.timezone, result);
    const fresh = insertRunEntry(emptyRunsNote(task.id, task.name), entry, slot, task.timezone);
    try {
      await createVaultFile(this.deps.vault, task.output, fresh);
      return true;
    } catch (error) {
      if (!(error instanceof VaultFileExistsError)) throw error;
    }
    const edited = await editVaultFile(this.deps.vault, task.output, (current) =>
      hasRunEntry(current, slot, task.timezone)
        ? current
        : insertRunEntry(current, entry, slot, task.timezone),
    );
    return edited.changed;
  }

  /**
   * Pushes the first line to every subscribed phone, opening the note; once per slot (recorded).
   * Returns a note for the history when it did not reach every phone.
   */
  private async push(
    task: TaskDefinition,
    slot: number,
    summary: string,
  ): Promise<string | undefined> {
    const { push, runs, clock } = this.deps;
    if (push === undefined) return 'push is not set up on this companion';
    if (runs.get(task.id, slot)?.pushedAt != null) return undefined;
    const payload: PushPayload = {
      title: task.name,
      body: summary === '' ? 'Cairn ran your task.' : summary,
      reminder_id: `task-${task.id}`,
      occurrence: formatInZone(slot, task.timezone),
      deep_link: reminderDeepLink(
        basename(this.deps.vault),
        task.deliver.includes('note') ? task.output : task.path,
      ),
      actions: ['open'],
    };
    const devices = await push.subscriptions();
    const outcomes = await Promise.all(
      devices.map(({ id }) =>
        push.deliver({
          subscriptionId: id,
          payload,
          ttlSeconds: PUSH_TTL_SECONDS,
          topic: `task-${task.id}`,
          urgency: 'high',
          attempt: 1,
        }),
      ),
    );
    runs.markPushed(task.id, slot, clock.now());
    const missed = outcomes.filter((outcome) => outcome.kind !== 'sent').length;
    if (devices.length === 0) return 'no phone is subscribed to push';
    return missed > 0 ? `the push did not reach ${missed} of ${devices.length} devices` : undefined;
  }
}
