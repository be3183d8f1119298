import { randomBytes } from 'node:crypto';
import { DEFAULT_ASK_TIMEOUT_MS, PendingAsks } from '../../shared/chat/pending-asks';
import type { Clock } from '../../shared/ports';

/*
 * The companion's side of the pending asks (shared/chat/pending-asks.ts): its timer and ids.
 * Asks are answered with `POST /api/v1/tools/asks/:id` and cancelled when the companion closes.
 */
export {
  AskNotFoundError,
  DEFAULT_ASK_TIMEOUT_MS,
  PendingAsks,
} from '../../shared/chat/pending-asks';

/** Pending asks with Node's timer and random ids. */
export function companionAsks(
  clock: Clock,
  timeoutMs = DEFAULT_ASK_TIMEOUT_MS,
  schedule: (ms: number, fn: () => void) => () => void = scheduleTimer,
): PendingAsks {
  return new PendingAsks(
    clock,
    timeoutMs,
    schedule,
    () => `ask-${randomBytes(9).toString('base64url')}`,
  );
}

/** A released-on-cancel timer that does not keep the process alive. */
export function scheduleTimer(ms: number, fn: () => void): () => void {
  const timer = setTimeout(fn, ms);
  timer.unref();
  return () => clearTimeout(timer);
}
