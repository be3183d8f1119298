import { randomInt } from 'node:crypto';
import type { Clock } from '../../shared/ports';
import {
  MEMORY_PATH,
  MemoryInputError,
  addMemory,
  parseMemoryFile,
  recallMemories,
  removeMemory,
  toMemoryItem,
} from '../../shared/memory';
import type { Memory, MemoryFile } from '../../shared/memory';
import type { MemoryCreated, MemoryItem } from '../../shared/protocol/memories';
import { formatInZone } from '../../shared/reminders';
import { ApiHttpError } from '../http/api-error';
import { createVaultFile, editVaultFile, VaultWriteError } from '../vault/atomic-write';
import { resolveVaultPath } from '../vault/paths';
import { readFile } from 'node:fs/promises';

export interface MemoryServiceDeps {
  readonly vault: string;
  readonly zone: string;
  readonly clock: Clock;
  /** Uniform in [0, 1); injected for deterministic ids in tests. */
  readonly random?: () => number;
}

/**
 * The companion's memory port (docs/memory-digest-calendar.md), used by the HTTP routes and chat, and meant for the
 * MCP `remember`/`recall` tools: every call reads `Cairn/Memory.md` afresh (the file is the truth;
 * a hand edit is seen at the next call, no cache to invalidate), and every write goes through
 * the atomic edit helpers, touching only its own lines.
 */
export class MemoryService {
  readonly path = MEMORY_PATH;
  private readonly random: () => number;

  constructor(private readonly deps: MemoryServiceDeps) {
    this.random = deps.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32);
  }

  /** The parsed file; an absent file is no memories and no problems. */
  async read(): Promise<MemoryFile> {
    const text = await this.readText();
    return parseMemoryFile(text ?? '');
  }

  async list(): Promise<{ memories: MemoryItem[]; problems: MemoryFile['problems'] }> {
    const file = await this.read();
    return { memories: file.memories.map((m) => toMemoryItem(m)), problems: file.problems };
  }

  /** Facts sharing words with `query`, best first (all for an empty query). */
  async recall(query: string): Promise<MemoryItem[]> {
    const file = await this.read();
    return recallMemories(file.memories, query).map((m) => toMemoryItem(m));
  }

  async remember(text: string): Promise<MemoryCreated> {
    const today = formatInZone(this.deps.clock.now(), this.deps.zone).slice(0, 10);
    return memoryErrors(async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await this.readText();
        if (current === undefined) {
          const result = addMemory(undefined, text, today, this.random);
          try {
            await createVaultFile(this.deps.vault, MEMORY_PATH, result.text);
            return this.created(result.memory, false, []);
          } catch (error) {
            // Someone created the file between our read and our create: edit it instead.
            if (error instanceof VaultWriteError && error.code === 'CONFLICT' && attempt < 2)
              continue;
            throw error;
          }
        }
        let outcome: ReturnType<typeof addMemory> | undefined;
        await editVaultFile(this.deps.vault, MEMORY_PATH, (before) => {
          outcome = addMemory(before, text, today, this.random);
          return outcome.text;
        });
        const result = outcome!;
        return this.created(
          result.memory,
          result.duplicate,
          result.replaced.map((m) => m.id),
        );
      }
    });
  }

  /** Removes the one line of memory `id` (with or without the caret). */
  async forget(id: string): Promise<MemoryItem> {
    const bare = id.replace(/^\^/, '');
    return memoryErrors(async () => {
      if ((await this.readText()) === undefined) {
        throw new MemoryInputError(
          'NOT_FOUND',
          `no memory ^${bare}: ${MEMORY_PATH} does not exist`,
          'id',
        );
      }
      let removed: Memory | undefined;
      await editVaultFile(this.deps.vault, MEMORY_PATH, (before) => {
        const result = removeMemory(before, bare);
        removed = result.removed;
        return result.text;
      });
      return toMemoryItem(removed!);
    });
  }

  private created(memory: Memory, deduplicated: boolean, replaced: string[]): MemoryCreated {
    return { ...toMemoryItem(memory), deduplicated, replaced };
  }

  private async readText(): Promise<string | undefined> {
    const resolved = await resolveVaultPath(this.deps.vault, MEMORY_PATH);
    if (!resolved.ok) throw new ApiHttpError('INTERNAL_ERROR', resolved.reason);
    if (!resolved.exists) return undefined;
    try {
      return await readFile(resolved.absolute, 'utf8');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return undefined;
      if (code === 'EISDIR') {
        throw new ApiHttpError(
          'CONFLICT',
          `${MEMORY_PATH} is a folder, not a file; rename it so Cairn can keep memories`,
          'path',
        );
      }
      throw error;
    }
  }
}

/** Memory and vault errors as API errors (NOT_FOUND → 404, a bad fact → 400 naming `text`). */
async function memoryErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof MemoryInputError)
      throw new ApiHttpError(error.code, error.message, error.field);
    if (error instanceof VaultWriteError) {
      throw new ApiHttpError(error.code, error.message, error.field);
    }
    throw error;
  }
}
