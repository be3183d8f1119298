import { ChatPortError } from '../../shared/chat/ports';
import type { RecentWritesStore } from '../../shared/chat/recent-writes';
import { storageProblem } from '../http/storage-error';
import { digestOf } from './write-memory';
import type { WriteMemory } from './write-memory';

const PREFIX = 'dedup:chat:';

/**
 * Chat's RecentWrites (shared/chat/recent-writes.ts) kept in the companion's write memory, so
 * "remind me…" sent twice across a restart still writes one reminder. Keys are hashed (a
 * note's key holds its whole body); the namespace stays readable in front for `remove`.
 */
export function chatWriteMemory(memory: WriteMemory): RecentWritesStore {
  const keyOf = (key: string) => {
    const split = key.indexOf(':');
    return `${PREFIX}${key.slice(0, split + 1)}${digestOf(key)}`;
  };
  return {
    find: (key) => {
      const entry = memory.recall(keyOf(key));
      return entry === undefined ? undefined : (JSON.parse(entry.response) as unknown);
    },
    put: (key, value, _at, ttlMs) => {
      const stored = keyOf(key);
      try {
        memory.remember(
          stored,
          { requestHash: stored, status: 200, response: JSON.stringify(value) },
          ttlMs,
        );
      } catch (error) {
        // A full database disk is said as such (as asChatPort does for the services).
        const storage = storageProblem(error);
        if (storage) throw new ChatPortError('UNAVAILABLE', `${storage.code}: ${storage.message}`);
        throw error;
      }
    },
    remove: (prefix, matches) => {
      for (const entry of memory.entries(`${PREFIX}${prefix}`)) {
        if (matches(JSON.parse(entry.response) as unknown)) memory.forget(entry.key);
      }
    },
  };
}
