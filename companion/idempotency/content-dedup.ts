import { DEDUP_WINDOW_MS } from '../../shared/chat/recent-writes';
import { digestOf } from './write-memory';
import type { WriteMemory } from './write-memory';

/**
 * Dedup of identical creates (a double tap, a client retry without an Idempotency-Key, chat
 * asked twice): `content` is everything that makes two requests the same (a reminder's title,
 * due, zone and rule; a note's title, body, tags and folder), so a request that differs in
 * anything is never swallowed. Within five minutes, across restarts, the first result is
 * returned with `deduplicated: true` as long as `stillThere` says it still exists (a deleted
 * note is written again). Concurrent identical creates wait for each other. When the result
 * cannot be remembered (the database's disk is full), `undo` takes the create back before the
 * error goes on: an error must mean nothing was written, or a retry would write a second one.
 */
export async function createOnce<T>(
  memory: WriteMemory,
  kind: string,
  content: unknown,
  stillThere: (earlier: T) => Promise<T | undefined> | T | undefined,
  create: () => Promise<T>,
  undo?: (value: T) => Promise<void>,
): Promise<{ value: T; deduplicated: boolean }> {
  const key = `dedup:${kind}:${digestOf(content)}`;
  return memory.exclusive(key, async () => {
    const earlier = memory.recall(key);
    if (earlier !== undefined) {
      const current = await stillThere(JSON.parse(earlier.response) as T);
      if (current !== undefined) return { value: current, deduplicated: true };
    }
    const value = await create();
    try {
      memory.remember(
        key,
        { requestHash: key, status: 201, response: JSON.stringify(value) },
        // docs/chat.md's window, the same constant chat's RecentWrites uses.
        DEDUP_WINDOW_MS,
      );
    } catch (error) {
      await undo?.(value);
      throw error;
    }
    return { value, deduplicated: false };
  });
}
