import { DEFAULT_TASKS_FOLDER, TASK_WINDOW_MS } from '../../shared/tasks';
import type { TaskDefinition, TaskRunResult } from '../../shared/tasks';
import type { DigestService } from '../digest';
import { answerQuestion } from '../search';
import type { HybridSearch, Summarizer } from '../search';
import { noteLink } from '../../shared/digest';

/** A run that cannot give a result; `reason` goes into the run history. */
export class TaskActionError extends Error {
  override name = 'TaskActionError';
}

/** What a task does at its slot: the port between the runner and search, answers and digests. */
export interface TaskActions {
  run(task: TaskDefinition, slot: number): Promise<TaskRunResult>;
}

export interface VaultTaskActionsDeps {
  /** A search over the index as it is now; undefined while there is none. */
  readonly search: () => HybridSearch | undefined;
  /** The configured language model; absent, `ask` is extractive and `prompt` refuses. */
  readonly summarizer?: Summarizer;
  /** Weekly digests; absent, `digest` tasks fail saying so. */
  readonly digest?: DigestService;
}

/** Passages an ask or prompt task stands on; search hits listed. */
const ANSWER_PASSAGES = 5;
const SEARCH_HITS = 10;

/**
 * The actions over the companion's own services (docs/tasks.md):
 * - `ask`: the cited extractive answer; phrased by the LLM when one is configured.
 * - `search`: the hits as links, one line each with its excerpt.
 * - `digest`: the digest of the week before the run (written unless it exists), linked.
 * - `prompt`: the LLM's answer to the prompt over the vault's top passages; fails without one.
 * Tasks' own notes (the tasks folder) are left out of what they search, so a task never cites
 * its own earlier answers.
 */
export class VaultTaskActions implements TaskActions {
  constructor(private readonly deps: VaultTaskActionsDeps) {}

  async run(task: TaskDefinition, slot: number): Promise<TaskRunResult> {
    switch (task.action) {
      case 'ask':
        return this.answer(task, slot, this.deps.summarizer !== undefined);
      case 'prompt':
        if (this.deps.summarizer === undefined) {
          throw new TaskActionError(
            'a prompt task needs a language model, and none is configured (CAIRN_OLLAMA_CHAT_MODEL)',
          );
        }
        return this.answer(task, slot, true);
      case 'search':
        return this.search(task, slot);
      case 'digest':
        return this.digest(task, slot);
    }
  }

  private filters(task: TaskDefinition, slot: number) {
    return {
      ...(task.filters.folder === undefined ? {} : { folder: task.filters.folder }),
      ...(task.filters.tag === undefined ? {} : { tag: task.filters.tag }),
      ...(task.filters.within === undefined
        ? {}
        : { from: slot - TASK_WINDOW_MS[task.filters.within] }),
      excludeFolders: [DEFAULT_TASKS_FOLDER],
    };
  }

  private searcher(): HybridSearch {
    const search = this.deps.search();
    if (search === undefined) throw new TaskActionError('the vault index is not available yet');
    return search;
  }

  private async answer(
    task: TaskDefinition,
    slot: number,
    summarize: boolean,
  ): Promise<TaskRunResult> {
    const outcome = await answerQuestion(this.searcher(), this.deps.summarizer, {
      question: task.input,
      limit: ANSWER_PASSAGES,
      summarize,
      filters: this.filters(task, slot),
    });
    if (task.action === 'prompt' && outcome.summaryError !== undefined) {
      throw new TaskActionError(`the language model did not answer: ${outcome.summaryError}`);
    }
    if (outcome.citations.length === 0) {
      // "What did I write about the house?" asks for notes, not a sentence that answers it: no
      // passage passes the answer gate, but the notes that match are what the user wants.
      const notes = await this.matching(task, slot, task.input);
      if (notes.citations.length > 0) {
        return {
          text: `No passage answers “${task.input}” directly; ${notes.text}`,
          citations: notes.citations,
        };
      }
    }
    return { text: outcome.answer, citations: outcome.citations };
  }

  private async search(task: TaskDefinition, slot: number): Promise<TaskRunResult> {
    const found = await this.matching(task, slot, task.input);
    if (found.citations.length === 0) {
      return { text: `Nothing in the vault matches "${task.input}".`, citations: [] };
    }
    return { text: found.text, citations: found.citations };
  }

  /** The notes matching `query`, one line each (`N notes match "q":` then links and excerpts). */
  private async matching(
    task: TaskDefinition,
    slot: number,
    query: string,
  ): Promise<TaskRunResult> {
    const outcome = await this.searcher().search({
      query,
      limit: SEARCH_HITS,
      filters: this.filters(task, slot),
    });
    const seen = new Set<string>();
    const lines: string[] = [];
    for (const hit of outcome.hits) {
      if (seen.has(hit.citation.path)) continue;
      seen.add(hit.citation.path);
      const excerpt = hit.citation.excerpt.replace(/\s+/g, ' ').trim();
      lines.push(
        `- ${noteLink(hit.citation.path, hit.citation.title)}${excerpt ? `: ${excerpt}` : ''}`,
      );
    }
    const count = `${seen.size} note${seen.size === 1 ? '' : 's'}`;
    return {
      text: `${count} match "${query}":\n${lines.join('\n')}`,
      citations: outcome.hits.map((hit) => hit.citation),
    };
  }

  private async digest(task: TaskDefinition, slot: number): Promise<TaskRunResult> {
    const digest = this.deps.digest;
    if (digest === undefined) throw new TaskActionError('weekly digests are not available here');
    // The built-in task is the digest schedule: the week its slot closes, once per week (a
    // digest the user deleted is not written again). A task of the user's writes the week
    // before unless its file exists.
    const outcome =
      task.builtin === 'digest'
        ? await digest.writeScheduled(digest.weekDueAt(slot))
        : await digest.writeOnDemand();
    const link = noteLink(outcome.path, `Digest ${outcome.week}`);
    const text =
      outcome.status === 'written'
        ? `Your digest of ${outcome.week} is ready: ${link}`
        : `Your digest of ${outcome.week} was already written: ${link}`;
    return { text, citations: [] };
  }
}
