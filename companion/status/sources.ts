import type { StatusResponse } from '../../shared/protocol/status';

type MaybePromise<T> = T | Promise<T>;

/**
 * Where `GET /api/v1/status` gets its numbers. The indexer, scheduler and push areas each
 * implement one of these over their own tables and are passed to `buildApp`.
 */
export interface IndexStatusSource {
  indexStatus(): MaybePromise<StatusResponse['index']>;
}

export interface SchedulerStatusSource {
  schedulerStatus(): MaybePromise<StatusResponse['scheduler']>;
}

export interface PushStatusSource {
  pushStatus(): MaybePromise<StatusResponse['push']>;
}

export interface StatusSources {
  readonly index: IndexStatusSource;
  readonly scheduler: SchedulerStatusSource;
  readonly push: PushStatusSource;
}

/**
 * What status reports for an area that is not running in this process: nothing indexed, no
 * reminders scheduled, no subscriptions. That is the truth of such a companion (it holds no
 * index, fires nothing), not a placeholder guess at the vault's contents.
 */
export const areaNotRunning: StatusSources = {
  index: {
    indexStatus: () => ({
      files: 0,
      chunks: 0,
      pending: 0,
      failed: [],
      embedding: null,
      semantic: {
        state: 'off',
        provider: 'none',
        model: null,
        dims: null,
        embedded: 0,
        total: 0,
        reason: 'the index does not run in this process',
      },
      excluded: [],
    }),
  },
  scheduler: { schedulerStatus: () => ({ reminders: 0, next_fire: null }) },
  push: { pushStatus: () => ({ subscriptions: 0 }) },
};
