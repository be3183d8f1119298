import type { Logger } from '../logging';
import type { VaultChange, VaultChangeFeed } from './vault-change';

/** What a schedule keeps from the vault: the ids one file's change touched. */
export interface ScheduleSource {
  applyChange(change: VaultChange): Promise<readonly string[]>;
}

/**
 * Keeps a durable scheduler (reminders, tasks) in step with the vault: each Markdown change is
 * read by `source` and only the ids it touched are re-planned. Changes are applied one at a
 * time, in order, after `ready` (e.g. the scheduler's start); a failure is logged, never stops
 * the chain. `close` unsubscribes and waits for the changes already received (close it before
 * the scheduler).
 */
export function replanOnVaultChange(
  feed: VaultChangeFeed,
  what: { readonly name: string; readonly source: ScheduleSource },
  scheduler: { replan(ids?: readonly string[]): Promise<void> },
  logger: Logger,
  ready: Promise<unknown> = Promise.resolve(),
): { close(): Promise<void> } {
  let chain: Promise<void> = ready.then(
    () => undefined,
    () => undefined,
  );
  const unsubscribe = feed.subscribe({
    name: what.name,
    kinds: ['markdown'],
    onChange: (change) => {
      chain = chain.then(async () => {
        try {
          const ids = await what.source.applyChange(change);
          if (ids.length > 0) await scheduler.replan([...ids]);
        } catch (error) {
          logger.error({ err: error }, `could not re-plan ${what.name} after a vault change`);
        }
      });
      return chain;
    },
  });
  return {
    async close() {
      unsubscribe();
      await chain;
    },
  };
}
