import { randomInt } from 'node:crypto';
import type { Clock } from '../../shared/ports';
import {
  MEMORY_PATH,
  MemoryInputError,
  addMemory,
  parseMemoryFile,
  MEMORY_CATEGORIES,
  MEMORY_CATEGORY_LABELS,
  classifyMemoryByRules,
  recallMemories,
  removeMemory,
  setMemoryCategory,
  toMemoryItem,
} from '../../shared/memory';
import type {
  CategoryAnswer,
  ImportedLine,
  Memory,
  MemoryCategory,
  MemoryFile,
} from '../../shared/memory';
import type { MemoryCreated, MemoryItem, MemoryLinkStatus } from '../../shared/protocol/memories';
import { formatInZone } from '../../shared/reminders';
import { ApiHttpError } from '../http/api-error';
import { createVaultFile, editVaultFile, VaultWriteError } from '../vault/atomic-write';
import { resolveVaultPath } from '../vault/paths';
import { readFile } from 'node:fs/promises';
import { firstUrl, LINKS_FOLDER } from './link-clipper';
import type { ClippedLink, ClippedNote, LinkClipper } from './link-clipper';
import { LinkFetchError, linkProblem } from './link-fetcher';

export interface MemoryServiceDeps {
  readonly vault: string;
  readonly zone: string;
  readonly clock: Clock;
  /** Uniform in [0, 1); injected for deterministic ids in tests. */
  readonly random?: () => number;
  /**
   * The configured LLM's category for a new fact (shared/memory/memory-category-llm.ts). With
   * it a fact is written untagged at once and tagged when the model answers (the rules' tag if
   * it fails); without it the rules' tag is written with the fact.
   */
  readonly categorize?: (text: string) => Promise<CategoryAnswer>;
  /** Told why the model's category was not used (the rules' was). */
  readonly onCategoryFallback?: (reason: string) => void;
  /** Saved links: a fact with a URL gets its page clipped (when offline mode allows the host). */
  readonly links?: LinkClipper;
  /** Told why a link was not clipped in the background (the retry route says it to the user). */
  readonly onLinkFailure?: (url: string, reason: string) => void;
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
  private readonly pending = new Set<Promise<void>>();
  /** Memories whose link is being fetched now, and why the last fetch of others failed. */
  private readonly fetching = new Set<string>();
  private readonly linkFailures = new Map<string, string>();
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly deps: MemoryServiceDeps) {
    this.random = deps.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32);
  }

  /** The parsed file; an absent file is no memories and no problems. */
  async read(): Promise<MemoryFile> {
    const text = await this.readText();
    return parseMemoryFile(text ?? '');
  }

  /** Current facts (those of one category when given) and the file's odd lines. */
  async list(
    category?: MemoryCategory,
  ): Promise<{ memories: MemoryItem[]; problems: MemoryFile['problems'] }> {
    const file = await this.read();
    const memories = file.memories.filter((m) => category === undefined || m.category === category);
    return { memories: memories.map((m) => toMemoryItem(m)), problems: file.problems };
  }

  /** Every category with how many current facts it holds (zeros included, in the fixed order). */
  async categories(): Promise<Array<{ category: MemoryCategory; label: string; count: number }>> {
    const file = await this.read();
    return MEMORY_CATEGORIES.map((category) => ({
      category,
      label: MEMORY_CATEGORY_LABELS[category],
      count: file.memories.filter((m) => m.category === category).length,
    }));
  }

  /** Facts sharing words with `query`, best first (all for an empty query), of one category. */
  async recall(query: string, category?: MemoryCategory): Promise<MemoryItem[]> {
    const file = await this.read();
    const memories = file.memories.filter((m) => category === undefined || m.category === category);
    return recallMemories(memories, query).map((m) => toMemoryItem(m));
  }

  /** Sets a fact's category tag (a user's choice: it replaces any tag). */
  async setCategory(id: string, category: MemoryCategory): Promise<MemoryItem> {
    const bare = id.replace(/^\^/, '');
    return memoryErrors(async () => {
      if ((await this.readText()) === undefined) {
        throw new MemoryInputError(
          'NOT_FOUND',
          `no memory ^${bare}: ${MEMORY_PATH} does not exist`,
          'id',
        );
      }
      let tagged: Memory | undefined;
      await editVaultFile(this.deps.vault, MEMORY_PATH, (before) => {
        const result = setMemoryCategory(before, bare, category);
        tagged = result.memory;
        return result.text;
      });
      return toMemoryItem(tagged!);
    });
  }

  /** Resolves when every category and link summary asked of the LLM is written (tests, shutdown). */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
    // A clipped link's summary follows its note.
    await this.deps.links?.settled();
  }

  async remember(text: string): Promise<MemoryCreated> {
    const created = await this.write(text);
    if (!created.deduplicated && created.category_source === 'rules') this.categorizeLater(created);
    const url = firstUrl(created.text);
    if (created.deduplicated || url === undefined) return created;
    const problem = linkProblem(url, this.deps.links?.policy ?? { hosts: [] });
    if (problem !== null) {
      return { ...created, link: { url, status: 'not_fetched', message: problem.message } };
    }
    this.clipLater(url, created.id);
    return {
      ...created,
      link: { url, status: 'fetching', message: `fetching ${url} into ${LINKS_FOLDER}/` },
    };
  }

  /**
   * Fetches memory `id`'s link now and clips it (the retry after a failure, or a first try).
   * @throws ApiHttpError saying why nothing was clipped.
   */
  async clipLink(id: string): Promise<{ memory: MemoryItem } & ClippedLink> {
    const bare = id.replace(/^\^/, '');
    const memory = (await this.read()).memories.find((m) => m.id === bare);
    if (memory === undefined) {
      throw new ApiHttpError('NOT_FOUND', `no memory ^${bare} in ${MEMORY_PATH}`, 'id');
    }
    const url = firstUrl(memory.text);
    if (url === undefined) {
      throw new ApiHttpError('UNPROCESSABLE', `memory ^${bare} holds no http(s) link`, 'id');
    }
    const clipper = this.deps.links;
    if (clipper === undefined) {
      throw new ApiHttpError('UNAVAILABLE', 'saved links are not set up on this companion');
    }
    try {
      const clipped = await clipper.clip(url, bare);
      this.linkFailures.delete(bare);
      return { memory: toMemoryItem(memory), ...clipped };
    } catch (error) {
      this.linkFailures.set(bare, error instanceof Error ? error.message : String(error));
      if (error instanceof LinkFetchError) throw linkApiError(error);
      if (error instanceof VaultWriteError)
        throw new ApiHttpError(error.code, error.message, error.field);
      throw error;
    }
  }

  private clipLater(url: string, id: string): void {
    const clipper = this.deps.links;
    if (clipper === undefined) return;
    this.fetching.add(id);
    const task = clipper.clip(url, id).then(
      () => {
        this.linkFailures.delete(id);
      },
      (error: unknown) => {
        const reason = error instanceof Error ? error.message : String(error);
        this.linkFailures.set(id, reason);
        this.deps.onLinkFailure?.(url, reason);
      },
    );
    this.pending.add(task);
    void task.finally(() => {
      this.fetching.delete(id);
      this.pending.delete(task);
    });
  }

  /**
   * Every memory with a link and what became of it (docs/memory-digest-calendar.md, saved
   * links): its clipped note, a fetch under way, the last failure (kept while the companion
   * runs), or why it is not fetched.
   */
  async linkStatuses(): Promise<MemoryLinkStatus[]> {
    const file = await this.read();
    const withLinks = file.memories.flatMap((memory) => {
      const url = firstUrl(memory.text);
      return url === undefined ? [] : [{ memory, url }];
    });
    if (withLinks.length === 0) return [];
    const clipped = (await this.deps.links?.clippedNotes()) ?? new Map<string, ClippedNote>();
    const policy = this.deps.links?.policy ?? { hosts: [] };
    return withLinks.map(({ memory, url }): MemoryLinkStatus => {
      const base = { memory: memory.id, url };
      const note = clipped.get(memory.id);
      const problem = linkProblem(url, policy);
      const retry = problem === null && this.deps.links !== undefined;
      if (note !== undefined) {
        return { ...base, status: 'clipped', message: `clipped into ${note.path}`, retry, note };
      }
      if (this.fetching.has(memory.id)) {
        return { ...base, status: 'fetching', message: `fetching ${url}`, retry: false };
      }
      const failure = this.linkFailures.get(memory.id);
      if (failure !== undefined) return { ...base, status: 'failed', message: failure, retry };
      if (problem !== null)
        return { ...base, status: 'not_fetched', message: problem.message, retry };
      return { ...base, status: 'not_fetched', message: 'not fetched yet', retry };
    });
  }

  private async write(text: string): Promise<MemoryCreated> {
    const today = formatInZone(this.deps.clock.now(), this.deps.zone).slice(0, 10);
    // With an LLM the fact goes in untagged now; its tag follows (categorizeLater).
    const category = this.deps.categorize === undefined ? 'rules' : null;
    return memoryErrors(async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await this.readText();
        if (current === undefined) {
          const result = addMemory(undefined, text, today, this.random, category);
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
          outcome = addMemory(before, text, today, this.random, category);
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

  /**
   * Adds the lines of an uploaded file in one write (docs/memory-digest-calendar.md, import):
   * all of them or, when one cannot be a memory, none (a 400 naming its line). A fact already
   * known, or given twice in the file, is skipped and counted.
   */
  async importMemories(
    lines: readonly ImportedLine[],
    filename: string,
  ): Promise<{ imported: MemoryItem[]; duplicates: number; replaced: string[] }> {
    const today = formatInZone(this.deps.clock.now(), this.deps.zone).slice(0, 10);
    const category = this.deps.categorize === undefined ? 'rules' : null;
    const addAll = (before: string | undefined) => {
      let text = before;
      const imported: Memory[] = [];
      const replaced: string[] = [];
      let duplicates = 0;
      for (const line of lines) {
        let result: ReturnType<typeof addMemory>;
        try {
          result = addMemory(text, line.text, today, this.random, category);
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
        else {
          imported.push(result.memory);
          replaced.push(...result.replaced.map((m) => m.id));
        }
      }
      return { text: text ?? '', imported, duplicates, replaced };
    };
    const outcome = await memoryErrors(async () => {
      for (let attempt = 1; ; attempt++) {
        const current = await this.readText();
        if (current === undefined) {
          const result = addAll(undefined);
          try {
            await createVaultFile(this.deps.vault, MEMORY_PATH, result.text);
            return result;
          } catch (error) {
            if (error instanceof VaultWriteError && error.code === 'CONFLICT' && attempt < 2)
              continue;
            throw error;
          }
        }
        let result: ReturnType<typeof addAll> | undefined;
        await editVaultFile(this.deps.vault, MEMORY_PATH, (before) => {
          result = addAll(before);
          return result.text;
        });
        return result!;
      }
    });
    // Lines below a struck-through one keep their numbers; the ids are what callers use.
    const items = outcome.imported.map((m) => toMemoryItem(m));
    for (const item of items) if (item.category_source === 'rules') this.categorizeLater(item);
    return { imported: items, duplicates: outcome.duplicates, replaced: outcome.replaced };
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

  /**
   * Asks the LLM for the category of a fact just written untagged, off the write's path, and
   * tags the line, unless the user tagged it meanwhile (their tag wins) or it is gone.
   */
  private categorizeLater(memory: MemoryItem): void {
    const categorize = this.deps.categorize;
    if (categorize === undefined) return;
    // One question at a time: an import of 500 lines must not open 500 requests at once.
    const task = this.queue.then(async () => {
      let category: MemoryCategory;
      let answer: CategoryAnswer;
      try {
        answer = await categorize(memory.text);
      } catch (error) {
        answer = { ok: false, reason: error instanceof Error ? error.message : String(error) };
      }
      if (answer.ok) category = answer.category;
      else {
        this.deps.onCategoryFallback?.(answer.reason);
        category = classifyMemoryByRules(memory.text);
      }
      try {
        await editVaultFile(this.deps.vault, MEMORY_PATH, (before) => {
          const current = parseMemoryFile(before).memories.some((m) => m.id === memory.id);
          if (!current) return before;
          return setMemoryCategory(before, memory.id, category, { onlyIfUntagged: true }).text;
        });
      } catch (error) {
        // The fact is written; a line left untagged is still placed by the rules when read.
        this.deps.onCategoryFallback?.(
          `could not tag ^${memory.id}: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    });
    this.queue = task;
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  private created(memory: Memory, deduplicated: boolean, replaced: string[]): MemoryCreated {
    return { ...toMemoryItem(memory), deduplicated, replaced };
  }

  private async readText(): Promise<string | undefined> {
    const resolved = await resolveVaultPath(this.deps.vault, MEMORY_PATH);
    if (!resolved.ok)
      throw new ApiHttpError(
        resolved.forbidden === true ? 'FORBIDDEN' : 'INTERNAL_ERROR',
        resolved.reason,
      );
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

/** Why a link was not clipped, as the API says it (`field: url`). */
function linkApiError(error: LinkFetchError): ApiHttpError {
  const code =
    error.code === 'BAD_URL'
      ? 'VALIDATION_ERROR'
      : error.code === 'TIMEOUT' || error.code === 'NETWORK' || error.code === 'HTTP_STATUS'
        ? 'UNAVAILABLE'
        : 'UNPROCESSABLE';
  return new ApiHttpError(code, `${error.code}: ${error.message}`, 'url');
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
