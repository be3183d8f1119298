/**
 * The chat's memory (docs/memory-digest-calendar.md) in the plugin: `Cairn/Memory.md` through the vault port, with
 * the same shared reader and line writers as the companion's MemoryService, so "remember that
 * …" in Obsidian writes exactly the line the phone would. Reads are fresh every time (the file
 * is the truth; hand edits count at once); writes go through `vault.process` (atomic) and
 * touch only their own lines.
 */
import { ChatPortError } from '../../shared/chat/ports';
import type { MemoryStore } from '../../shared/chat/ports';
import {
  MEMORY_PATH,
  MemoryInputError,
  addMemory,
  parseMemoryFile,
  removeMemory,
  toMemoryItem,
} from '../../shared/memory';
import type { AddMemoryResult, ImportedLine, Memory } from '../../shared/memory';
import type { Clock } from '../../shared/ports';
import type { MemoryCreated, MemoryItem } from '../../shared/protocol/memories';
import { formatInZone } from '../../shared/reminders';
import type { ChatVaultFiles } from './chat-vault-files';

export interface VaultMemoriesOptions {
  files: ChatVaultFiles;
  clock: Clock;
  zone: () => string;
  /** Uniform in [0, 1), for block ids. */
  random?: () => number;
}

export class VaultMemories implements MemoryStore {
  constructor(private readonly options: VaultMemoriesOptions) {}

  async list(): Promise<MemoryItem[]> {
    const text = await this.options.files.read(MEMORY_PATH);
    return parseMemoryFile(text ?? '').memories.map(toMemoryItem);
  }

  async remember(fact: string): Promise<MemoryCreated> {
    const { files, clock, zone } = this.options;
    const random = this.options.random ?? Math.random;
    const today = formatInZone(clock.now(), zone()).slice(0, 10);
    return portErrors(async () => {
      let result: AddMemoryResult | undefined;
      if ((await files.read(MEMORY_PATH)) === undefined) {
        result = addMemory(undefined, fact, today, random);
        await files.create(MEMORY_PATH, result.text);
      } else {
        await files.process(MEMORY_PATH, (current) => {
          result = addMemory(current, fact, today, random);
          return result.text;
        });
      }
      const done = result!;
      return {
        ...toMemoryItem(done.memory),
        deduplicated: done.duplicate,
        replaced: done.replaced.map((memory) => memory.id),
      };
    });
  }

  /**
   * Adds the lines of an imported file (shared/memory/memory-import.ts) in one atomic write,
   * all or none; facts already known (or given twice) are skipped and counted.
   */
  async importLines(
    lines: readonly ImportedLine[],
    filename: string,
  ): Promise<{ imported: number; duplicates: number }> {
    const { files, clock, zone } = this.options;
    const random = this.options.random ?? Math.random;
    const today = formatInZone(clock.now(), zone()).slice(0, 10);
    let imported = 0;
    let duplicates = 0;
    const addAll = (current: string | undefined): string => {
      let text = current;
      imported = 0;
      duplicates = 0;
      for (const line of lines) {
        let result: AddMemoryResult;
        try {
          result = addMemory(text, line.text, today, random);
        } catch (error) {
          if (error instanceof MemoryInputError) {
            throw new MemoryInputError(
              'VALIDATION_ERROR',
              `${filename}:${line.line}: ${error.message}; nothing was imported`,
              'file',
            );
          }
          throw error;
        }
        text = result.text;
        if (result.duplicate) duplicates++;
        else imported++;
      }
      return text ?? '';
    };
    return portErrors(async () => {
      if ((await files.read(MEMORY_PATH)) === undefined) {
        await files.create(MEMORY_PATH, addAll(undefined));
      } else {
        await files.process(MEMORY_PATH, (current) => addAll(current));
      }
      return { imported, duplicates };
    });
  }

  async forget(id: string): Promise<MemoryItem> {
    const files = this.options.files;
    return portErrors(async () => {
      if ((await files.read(MEMORY_PATH)) === undefined) {
        throw new MemoryInputError(
          'NOT_FOUND',
          `no memory ^${id}: ${MEMORY_PATH} does not exist`,
          'id',
        );
      }
      let removed: Memory | undefined;
      await files.process(MEMORY_PATH, (current) => {
        const result = removeMemory(current, id.replace(/^\^/, ''));
        removed = result.removed;
        return result.text;
      });
      return toMemoryItem(removed!);
    });
  }
}

async function portErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MemoryInputError)
      throw new ChatPortError(error.code, error.message, error.field);
    throw error;
  }
}
